import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { FunctionalStack } from 'sst/constructs/FunctionalStack.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiStack } from './ApiStack.js';
import { TABLE_ACTIONS } from './permissions.js';
import { MANAGE_CONNECTIONS, StreamStack } from './StreamStack.js';
import { SweepStack } from './SweepStack.js';
import { actionsOf, allStatements, buildApp, json, logicalId, policyStatements, type Statement } from './testSupport.js';

// One build of the home region for the file (bundling takes a few seconds).
let template: (stack: FunctionalStack<unknown>) => Template;
beforeAll(async () => {
  template = await buildApp('us-east-1');
});

/** The export of the WebSocket API's id, which every ManageConnections resource must name. */
const apiIdExport = (t: Template): string => `StreamStack:ExportsOutputRef${logicalId(t, 'AWS::ApiGatewayV2::Api', 'StreamsApi')}`;

describe('StreamStack', () => {
  it('deploys one WebSocket API with $connect, $disconnect and $default on the one streams Lambda', () => {
    const t = template(StreamStack);
    t.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    t.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'WEBSOCKET', RouteSelectionExpression: '$request.body.action' });
    const fn = logicalId(t, 'AWS::Lambda::Function', 'StreamsFunction');
    t.hasResourceProperties('AWS::Lambda::Function', { Handler: 'functions/streams.handler', Runtime: 'nodejs22.x', Timeout: 10 });
    const routes = Object.values(t.findResources('AWS::ApiGatewayV2::Route')) as { Properties: { RouteKey: string; Target: { 'Fn::Join': [string, [string, { Ref: string }]] } } }[];
    expect(routes.map((r) => r.Properties.RouteKey).sort()).toEqual(['$connect', '$default', '$disconnect']);
    for (const route of routes) {
      const integration = t.toJSON().Resources[route.Properties.Target['Fn::Join'][1][1].Ref] as { Properties: { IntegrationType: string; IntegrationUri: unknown } };
      expect(integration.Properties.IntegrationType).toBe('AWS_PROXY');
      expect(json(integration.Properties.IntegrationUri)).toContain(`"Fn::GetAtt":["${fn}","Arn"]`);
    }
    // The pong goes back to the sender as the $default route's response.
    t.hasResourceProperties('AWS::ApiGatewayV2::RouteResponse', { RouteResponseKey: '$default' });
    t.resourceCountIs('AWS::Lambda::Permission', 3);
  });

  it('outputs the wss:// URL of the stage', () => {
    const outputs = template(StreamStack).toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(json(outputs.StreamUrl?.Value)).toMatch(/"wss:\/\/",\{"Ref":"StreamsApi[^"]*"\},".execute-api.us-east-1."/);
  });

  it('limits the streams Lambda to the table’s item operations and ManageConnections on its own API', () => {
    const t = template(StreamStack);
    const statements = policyStatements(t, 'StreamsFunction').filter((s) => !actionsOf(s).every((a) => a.startsWith('xray:')));
    const byAction = (prefix: string): Statement[] => statements.filter((s) => actionsOf(s).some((a) => a.startsWith(prefix)));
    expect(statements.flatMap(actionsOf).sort()).toEqual([...TABLE_ACTIONS, MANAGE_CONNECTIONS].sort());
    expect(json(byAction('dynamodb:')[0]?.Resource)).toContain('StorageStack:ExportsOutputFnGetAttTable');
    const manage = byAction('execute-api:');
    expect(manage).toHaveLength(1);
    expect(json(manage[0]?.Resource)).toContain(`{"Ref":"${logicalId(t, 'AWS::ApiGatewayV2::Api', 'StreamsApi')}"}`);
    expect(json(manage[0]?.Resource)).toContain('@connections/*');
    for (const statement of allStatements(t)) for (const action of actionsOf(statement)) expect(action === '*' || action.endsWith(':*')).toBe(false);
  });
});

describe('publishing functions', () => {
  const publishers = [
    [ApiStack, 'ApiFunction'],
    [ApiStack, 'SignalsFunction'],
    [SweepStack, 'Sweep'],
  ] as const;

  it('get the management endpoint and ManageConnections on that API’s connections only', () => {
    const apiExport = apiIdExport(template(StreamStack));
    for (const [stack, id] of publishers) {
      const t = template(stack);
      t.hasResourceProperties('AWS::Lambda::Function', {
        Handler: Match.anyValue(),
        Environment: { Variables: Match.objectLike({ VIGIL_STREAM_ENDPOINT: { 'Fn::Join': ['', Match.arrayWith(['https://'])] } }) },
      });
      const fn = t.toJSON().Resources[logicalId(t, 'AWS::Lambda::Function', id)] as { Properties: { Environment: { Variables: Record<string, unknown> } } };
      expect(json(fn.Properties.Environment.Variables.VIGIL_STREAM_ENDPOINT), id).toContain(apiExport);
      const manage = policyStatements(t, id).filter((s) => actionsOf(s).includes(MANAGE_CONNECTIONS));
      expect(manage, id).toHaveLength(1);
      expect(actionsOf(manage[0] as Statement)).toEqual([MANAGE_CONNECTIONS]);
      expect(json(manage[0]?.Resource), id).toContain(apiExport);
      expect(json(manage[0]?.Resource), id).toMatch(/\/test\/\*\/@connections\/\*/);
    }
  });
});
