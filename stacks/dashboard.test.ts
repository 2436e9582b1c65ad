import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { FunctionalStack } from 'sst/constructs/FunctionalStack.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_HEADERS } from '../core/dashboard/siteHeaders.js';
import { ApiStack } from './ApiStack.js';
import { API_PATH_PATTERN, DashboardStack, securityHeadersOf } from './DashboardStack.js';
import { StreamStack } from './StreamStack.js';
import { allStatements, actionsOf, buildApp, logicalId } from '../test/support/stacks.js';

/*
 * The dashboard's deployment, asserted offline: buildApp points the StaticSite at a
 * prebuilt fixture (VIGIL_DASHBOARD_DIST), so no `npm run build:web` runs.
 */

// CloudFront's managed policies, by their fixed ids.
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

type Behavior = {
  PathPattern?: string;
  TargetOriginId: string;
  AllowedMethods?: string[];
  CachePolicyId: string;
  OriginRequestPolicyId?: string;
  ViewerProtocolPolicy: string;
  ResponseHeadersPolicyId?: unknown;
  FunctionAssociations?: { EventType: string; FunctionARN: { 'Fn::GetAtt': [string, string] } }[];
};
type Origin = { Id: string; DomainName: unknown; S3OriginConfig?: unknown; CustomOriginConfig?: { OriginProtocolPolicy: string } };
type DistributionConfig = { DefaultCacheBehavior: Behavior; CacheBehaviors: Behavior[]; Origins: Origin[]; CustomErrorResponses?: unknown[]; DefaultRootObject: string };

let template: (stack: FunctionalStack<unknown>) => Template;
let t: Template;
let config: DistributionConfig;
beforeAll(async () => {
  // A stage of its own: stacks/home.test.ts builds the same region at the same time (test/support/stacks.ts).
  template = await buildApp('us-east-1', {}, 'dash');
  t = template(DashboardStack);
  const id = logicalId(t, 'AWS::CloudFront::Distribution', 'DashboardDistribution');
  config = (t.toJSON().Resources[id] as { Properties: { DistributionConfig: DistributionConfig } }).Properties.DistributionConfig;
}, 120_000);

const originOf = (behavior: Behavior): Origin => {
  const origin = config.Origins.find((o) => o.Id === behavior.TargetOriginId);
  if (!origin) throw new Error(`no origin ${behavior.TargetOriginId}`);
  return origin;
};

describe('DashboardStack', () => {
  it('is one distribution whose default behaviour serves the private bucket over HTTPS, with the dashboard headers policy', () => {
    t.resourceCountIs('AWS::CloudFront::Distribution', 1);
    const origin = originOf(config.DefaultCacheBehavior);
    expect(origin.S3OriginConfig).toBeDefined();
    expect(origin.DomainName).toEqual({ 'Fn::GetAtt': [logicalId(t, 'AWS::S3::Bucket', 'DashboardS3Bucket'), 'RegionalDomainName'] });
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(config.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({ Ref: logicalId(t, 'AWS::CloudFront::ResponseHeadersPolicy', 'DashboardHeaders') });
    expect(config.DefaultRootObject).toBe('index.html');
    t.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    });
  });

  it('routes /api/* to the HTTP API: uncached, every method, the viewer headers (Authorization), cookies and query strings, HTTPS only', () => {
    expect(config.CacheBehaviors).toHaveLength(1);
    const [api] = config.CacheBehaviors;
    if (!api) throw new Error('no /api behaviour');
    expect(api.PathPattern).toBe(API_PATH_PATTERN);
    expect(API_PATH_PATTERN).toBe('/api/*');
    expect(api.AllowedMethods?.sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT']);
    expect(api.CachePolicyId).toBe(CACHING_DISABLED);
    // Host is API Gateway's own; with caching disabled this policy forwards Authorization too.
    expect(api.OriginRequestPolicyId).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
    expect(api.ViewerProtocolPolicy).toBe('https-only');
    // The API's own answers (CSRF_MISMATCH, JSON 404s, the badge SVG's CSP) pass untouched.
    expect(api.ResponseHeadersPolicyId).toBeUndefined();
    const origin = originOf(api);
    expect(origin.CustomOriginConfig?.OriginProtocolPolicy).toBe('https-only');
    // The HTTP API of ApiStack, by its id, at its execute-api host.
    const apiExport = JSON.stringify(origin.DomainName);
    const httpApi = logicalId(template(ApiStack), 'AWS::ApiGatewayV2::Api', 'Api');
    expect(apiExport).toContain(`"dash-vigil-ApiStack:ExportsOutputRef${httpApi}`);
    expect(apiExport).toContain('.execute-api.us-east-1.');
  });

  it("rewrites app routes to index.html at the edge instead of error responses, which would swallow the API's 403 and 404", () => {
    expect(config.CustomErrorResponses ?? []).toEqual([]);
    const association = config.DefaultCacheBehavior.FunctionAssociations?.[0];
    expect(association?.EventType).toBe('viewer-request');
    const fn = t.toJSON().Resources[association?.FunctionARN['Fn::GetAtt'][0] ?? ''] as { Properties: { FunctionCode: string } };
    const handler = new Function(`${fn.Properties.FunctionCode}; return handler;`)() as (event: { request: { uri: string } }) => { uri: string };
    expect(handler({ request: { uri: '/checks/12' } }).uri).toBe('/index.html');
    expect(handler({ request: { uri: '/' } }).uri).toBe('/index.html');
    expect(handler({ request: { uri: '/assets/index-abc123.js' } }).uri).toBe('/assets/index-abc123.js');
  });

  it('attaches a response headers policy made from DASHBOARD_HEADERS, plus HSTS', () => {
    t.resourceCountIs('AWS::CloudFront::ResponseHeadersPolicy', 1);
    t.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: {
        SecurityHeadersConfig: {
          ContentSecurityPolicy: { ContentSecurityPolicy: DASHBOARD_HEADERS['Content-Security-Policy'], Override: true },
          ContentTypeOptions: { Override: true },
          FrameOptions: { FrameOption: 'DENY', Override: true },
          ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
          StrictTransportSecurity: { AccessControlMaxAgeSec: 31_536_000, IncludeSubdomains: true, Override: true },
        },
      },
    });
    expect(DASHBOARD_HEADERS['Content-Security-Policy']).toContain("script-src 'self';");
    // A header the policy cannot express fails the synth rather than being dropped.
    expect(() => securityHeadersOf({ ...DASHBOARD_HEADERS, 'Permissions-Policy': 'camera=()' })).toThrow(/Permissions-Policy/);
  });

  it('builds with the stream URL, and outputs the dashboard URL', () => {
    const streamApi = logicalId(template(StreamStack), 'AWS::ApiGatewayV2::Api', 'Streams');
    const metadata = JSON.stringify(t.toJSON().Outputs.SSTMetadata);
    expect(metadata).toContain('VITE_STREAM_URL');
    expect(metadata).toContain(`dash-vigil-StreamStack:ExportsOutputRef${streamApi}`);
    expect(t.toJSON().Outputs.DashboardUrl.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalId(t, 'AWS::CloudFront::Distribution', 'DashboardDistribution'), 'DomainName'] }]],
    });
  });

  it('grants least privilege: CloudFront reads objects only, TLS only, the uploader writes only this bucket', () => {
    const bucket = logicalId(t, 'AWS::S3::Bucket', 'DashboardS3Bucket');
    t.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({ Effect: 'Allow', Action: 's3:GetObject', Principal: { CanonicalUser: Match.anyValue() } }),
        ]),
      },
    });
    const writes = allStatements(t).filter((s) => actionsOf(s).some((a) => a.startsWith('s3:Put') || a.startsWith('s3:Delete')));
    expect(writes.length).toBeGreaterThan(0);
    for (const statement of writes) expect(JSON.stringify(statement.Resource)).toContain(bucket);
    expect(
      allStatements(t)
        .flatMap(actionsOf)
        .filter((a) => a.endsWith(':*')),
    ).toEqual([]);
  });
});
