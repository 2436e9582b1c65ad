import { Duration } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Function as CfFunction,
  FunctionCode,
  FunctionEventType,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
  type ResponseSecurityHeadersBehavior,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { relative, resolve } from 'node:path';
import { StaticSite, use, type Stack, type StackContext } from 'sst/constructs';
import { DASHBOARD_HEADERS } from '../core/dashboard/siteHeaders.js';
import { ApiStack } from './ApiStack.js';
import { StreamStack } from './StreamStack.js';

/** The dashboard's source (an npm workspace) and what `npm run build:web` writes there. */
export const DASHBOARD_PATH = 'web';
export const DASHBOARD_BUILD_COMMAND = 'npm --prefix .. run build:web';
export const DASHBOARD_OUTPUT = 'dist';
/** The path CloudFront sends to the HTTP API instead of the bucket: the dashboard and its API share one origin. */
export const API_PATH_PATTERN = '/api/*';
/** HSTS is CloudFront's alone: the local server speaks plain HTTP (core/dashboard/siteHeaders.ts). */
export const HSTS_MAX_AGE = Duration.days(365);

/**
 * DASHBOARD_HEADERS as CloudFront's response headers policy. CloudFront refuses these security
 * headers as custom headers, so each is mapped to its own setting; a header this does not know
 * fails the synth instead of being dropped, so the constant and the policy cannot drift.
 */
export function securityHeadersOf(headers: Readonly<Record<string, string>>): ResponseSecurityHeadersBehavior {
  const behavior: { -readonly [K in keyof ResponseSecurityHeadersBehavior]: ResponseSecurityHeadersBehavior[K] } = {
    strictTransportSecurity: { accessControlMaxAge: HSTS_MAX_AGE, includeSubdomains: true, override: true },
  };
  for (const [name, value] of Object.entries(headers)) {
    switch (name.toLowerCase()) {
      case 'content-security-policy':
        behavior.contentSecurityPolicy = { contentSecurityPolicy: value, override: true };
        break;
      case 'x-content-type-options':
        if (value !== 'nosniff') throw new Error(`X-Content-Type-Options can only be nosniff on CloudFront, not ${value}`);
        behavior.contentTypeOptions = { override: true };
        break;
      case 'x-frame-options':
        behavior.frameOptions = { frameOption: value === 'DENY' ? HeadersFrameOption.DENY : HeadersFrameOption.SAMEORIGIN, override: true };
        break;
      case 'referrer-policy': {
        const policy = Object.values(HeadersReferrerPolicy).find((known) => known === value);
        if (!policy) throw new Error(`Unknown Referrer-Policy ${value}`);
        behavior.referrerPolicy = { referrerPolicy: policy, override: true };
        break;
      }
      default:
        throw new Error(`DASHBOARD_HEADERS has ${name}, which the CloudFront policy does not map yet`);
    }
  }
  return behavior;
}

/**
 * A single-page app's routes are paths without a file extension (`/checks/12`): the bucket has
 * only index.html for them. Rewriting at the edge, rather than CloudFront's error responses (SST's
 * default), keeps the API's own 403 and 404 answers, which error responses would replace with
 * the page for every behaviour.
 */
const SPA_REWRITE = `function handler(event) {
  var request = event.request;
  var last = request.uri.split('/').pop();
  if (last.indexOf('.') === -1) request.uri = '/index.html';
  return request;
}`;

/**
 * Where the dashboard's files come from: built by `sst deploy` (the root script `build:web`), or,
 * with VIGIL_DASHBOARD_DIST, a directory built before (CI builds once; the offline stack tests
 * point it at a fixture so no build runs). Relative to the site's path, as StaticSite reads it.
 */
function buildSource(env: Record<string, string | undefined>): { buildCommand?: string; buildOutput: string } {
  const prebuilt = env.VIGIL_DASHBOARD_DIST;
  if (!prebuilt) return { buildCommand: DASHBOARD_BUILD_COMMAND, buildOutput: DASHBOARD_OUTPUT };
  return { buildOutput: relative(resolve(DASHBOARD_PATH), resolve(prebuilt)) };
}

/**
 * The dashboard: an SST StaticSite (private S3 bucket, CloudFront) whose distribution
 * also routes `/api/*` to the HTTP API, uncached, with every method and the viewer's headers
 * (Authorization included, which CloudFront forwards only with caching disabled), cookies and
 * query strings, so the session cookie's SameSite=Strict and the CSP's 'self' hold. The WebSocket
 * API stays its own origin: the build gets its URL as VITE_STREAM_URL.
 */
export function DashboardStack({ stack }: StackContext) {
  const { api } = use(ApiStack);
  const { streams } = use(StreamStack);
  const headers = new ResponseHeadersPolicy(stack, 'DashboardHeaders', {
    comment: 'Vigil dashboard security headers (core/dashboard/siteHeaders.ts)',
    securityHeadersBehavior: securityHeadersOf(DASHBOARD_HEADERS),
  });
  const apiOrigin = new HttpOrigin(apiDomain(stack, api.cdk.httpApi.apiId), { protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY });

  const site = new StaticSite(stack, 'Dashboard', {
    path: DASHBOARD_PATH,
    ...buildSource(process.env),
    environment: { VITE_STREAM_URL: streams.url },
    // SST writes the env's types beside vite.config; kept out of web/src, which the app owns.
    vite: { types: '../.sst/types/dashboard-env.d.ts' },
    cdk: {
      bucket: { enforceSSL: true },
      distribution: {
        comment: 'Vigil dashboard and /api',
        errorResponses: [],
        defaultBehavior: {
          viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          responseHeadersPolicy: headers,
          functionAssociations: [
            { function: new CfFunction(stack, 'DashboardRoutes', { code: FunctionCode.fromInline(SPA_REWRITE) }), eventType: FunctionEventType.VIEWER_REQUEST },
          ],
        },
        additionalBehaviors: {
          [API_PATH_PATTERN]: {
            origin: apiOrigin,
            viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
            allowedMethods: AllowedMethods.ALLOW_ALL,
            cachePolicy: CachePolicy.CACHING_DISABLED,
            // API Gateway answers only for its own Host; everything else the viewer sent goes through.
            originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          },
        },
      },
    },
  });
  stack.addOutputs({ DashboardUrl: site.url ?? '' });
  return { site };
}

/** The HTTP API's execute-api host, the origin CloudFront calls for `/api/*`. */
const apiDomain = (stack: Stack, apiId: string): string => `${apiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
