import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { FunctionalStack } from 'sst/constructs/FunctionalStack.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { TABLE_KEYS } from '../core/store/table.js';
import { WAKE_MARGIN_MS } from '../core/sweep/wakes.js';
import { ApiStack, SCHEDULE_ACTIONS, SIGNAL_ROUTE_PREFIXES } from './ApiStack.js';
import { TABLE_ACTIONS } from './permissions.js';
import { deploySettings } from './settings.js';
import { ProbeStack } from './ProbeStack.js';
import { CONSUMER_TIMEOUT_SECONDS, QueueStack } from './QueueStack.js';
import { StorageStack } from './StorageStack.js';
import { MANAGE_CONNECTIONS, StreamStack } from './StreamStack.js';
import { SweepStack } from './SweepStack.js';
import { ALERT_BATCH_SIZE, ALERT_WEBHOOK_SECONDS, WorkerStack } from './WorkerStack.js';
import { ACCOUNT, actionsOf, allStatements, buildApp, policyStatements, json, logicalId, type Statement } from '../test/support/stacks.js';

const METRICS_TOKEN = 'metrics-token-0123456789';

// One build of the home region for the whole file: bundling every function takes a few seconds.
let template: (stack: FunctionalStack<unknown>) => Template;
beforeAll(async () => {
  template = await buildApp('us-east-1', { VIGIL_MAIL_FROM: 'alerts@vigil.example', VIGIL_METRICS_TOKEN: METRICS_TOKEN });
});

describe('StorageStack', () => {
  it('deploys the single table of core/store/table.ts', () => {
    const t = template(StorageStack);
    t.resourceCountIs('AWS::DynamoDB::Table', 1);
    t.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: {
        TableName: 'test-vigil-table',
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        GlobalSecondaryIndexes: TABLE_KEYS.indexes.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      },
    });
  });

  it.each([
    ['outbox-due index the relay sweeps', 'gsi4'],
    ['escalation-due index the escalation sweep reads', 'gsi5'],
  ])('has the sparse %s (%s)', (_what, index) => {
    template(StorageStack).hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: Match.arrayWith([
        {
          IndexName: index,
          KeySchema: [
            { AttributeName: `${index}pk`, KeyType: 'HASH' },
            { AttributeName: `${index}sk`, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ]),
    });
  });
});

describe('QueueStack', () => {
  it('creates incidents and alerts, each redriving to its own DLQ after 5 receives', () => {
    const t = template(QueueStack);
    t.resourceCountIs('AWS::SQS::Queue', 4);
    for (const name of ['incidents', 'alerts']) {
      const dlq = logicalId(t, 'AWS::SQS::Queue', `${name}dlq`);
      t.hasResourceProperties('AWS::SQS::Queue', { QueueName: `test-vigil-${name}-dlq`, MessageRetentionPeriod: 14 * 86400 });
      t.hasResourceProperties('AWS::SQS::Queue', {
        QueueName: `test-vigil-${name}`,
        VisibilityTimeout: 180,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] }, maxReceiveCount: 5 },
      });
    }
  });
});

describe('ApiStack', () => {
  const routeTarget = (t: Template, routeKey: string): string => {
    const route = Object.values(t.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: routeKey } }))[0] as
      | { Properties: { Target: { 'Fn::Join': [string, [string, { Ref: string }]] } } }
      | undefined;
    if (!route) throw new Error(`no route ${routeKey}`);
    const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref;
    const integration = t.toJSON().Resources[integrationId] as { Properties: { IntegrationUri: { 'Fn::GetAtt': [string, string] } } };
    return integration.Properties.IntegrationUri['Fn::GetAtt'][0];
  };

  it("serves integrations' intake URLs (POST /api/integrations/intake/<secret>) from the API Lambda, with no authorizer: the secret is the app's to check", () => {
    const t = template(ApiStack);
    const api = logicalId(t, 'AWS::Lambda::Function', 'ApiFunction');
    const intake = '/api/integrations/intake/vin_secret';
    expect(SIGNAL_ROUTE_PREFIXES.some((prefix) => intake.startsWith(`${prefix}/`))).toBe(false);
    expect(routeTarget(t, 'ANY /api/{proxy+}')).toBe(api);
    const [route] = Object.values(t.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: 'ANY /api/{proxy+}' } })) as {
      Properties: { AuthorizationType?: string };
    }[];
    expect(route?.Properties.AuthorizationType ?? 'NONE').toBe('NONE');
  });

  it('routes token pings to the signals Lambda and the rest of /api (slug pings included) to the API Lambda', () => {
    const t = template(ApiStack);
    t.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    t.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    const api = logicalId(t, 'AWS::Lambda::Function', 'ApiFunction');
    const signals = logicalId(t, 'AWS::Lambda::Function', 'SignalsFunction');
    // Slug pings need the API key, slug lookup and job creation of the full app: the API Lambda serves them.
    expect([...SIGNAL_ROUTE_PREFIXES]).toEqual(['/api/signals/ping', '/api/push']);
    for (const prefix of SIGNAL_ROUTE_PREFIXES) expect(routeTarget(t, `ANY ${prefix}/{proxy+}`)).toBe(signals);
    expect(routeTarget(t, 'ANY /api/{proxy+}')).toBe(api);
    expect(routeTarget(t, '$default')).toBe(api);
    // History and the stream need the session routes of the full app: no catch-all for /api/signals.
    const routeKeys = Object.values(t.findResources('AWS::ApiGatewayV2::Route')).map((route) => (route as { Properties: { RouteKey: string } }).Properties.RouteKey);
    expect(routeKeys.sort()).toEqual(['$default', 'ANY /api/push/{proxy+}', 'ANY /api/signals/ping/{proxy+}', 'ANY /api/{proxy+}']);
    t.hasResourceProperties('AWS::Lambda::Function', { Handler: Match.stringLikeRegexp('signals\\.handler$'), Timeout: 10 });
    t.hasResourceProperties('AWS::ApiGatewayV2::Integration', { PayloadFormatVersion: '2.0', IntegrationUri: { 'Fn::GetAtt': [signals, 'Arn'] } });
    // A ping's signal (its wake entry) lands before its Lambda times out: the sweep reads back that far.
    for (const fn of [api, signals]) {
      const timeout = (t.toJSON().Resources[fn] as { Properties: { Timeout: number } }).Properties.Timeout;
      expect(timeout * 1000).toBeLessThan(WAKE_MARGIN_MS);
    }
  });

  it('runs every function on nodejs22.x', () => {
    for (const stack of [ApiStack, WorkerStack, SweepStack, ProbeStack]) {
      const functions = Object.values(template(stack).findResources('AWS::Lambda::Function')) as { Properties: { Runtime: string } }[];
      expect(functions.length).toBeGreaterThan(1);
      for (const fn of functions) expect(fn.Properties.Runtime).toBe('nodejs22.x');
    }
  });

  it('gives the API what the scheduler adapter reads: group, role and a probe ARN per region', () => {
    const t = template(ApiStack);
    t.hasResourceProperties('AWS::Lambda::Function', {
      Handler: Match.stringLikeRegexp('api\\.handler$'),
      Environment: {
        Variables: Match.objectLike({
          VIGIL_HOME_REGION: 'us-east-1',
          VIGIL_SCHEDULE_GROUP: 'test-vigil-probes',
          VIGIL_SCHEDULER_ROLE_ARN: Match.anyValue(),
          VIGIL_QUEUE_URL_INCIDENTS: Match.anyValue(),
          VIGIL_QUEUE_URL_ALERTS: Match.anyValue(),
          VIGIL_MAIL_FROM: 'alerts@vigil.example',
          VIGIL_PUBLIC_URL: { 'Fn::GetAtt': [logicalId(t, 'AWS::ApiGatewayV2::Api', 'Api'), 'ApiEndpoint'] },
          VIGIL_PROBE_FUNCTION_ARN_EU_WEST_1: {
            'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:lambda:eu-west-1:${ACCOUNT}:function:test-vigil-probe`]],
          },
        }),
      },
    });
  });
});

describe('VIGIL_METRICS_TOKEN', () => {
  const variablesOf = (t: Template, id: string): Record<string, unknown> =>
    (t.toJSON().Resources[logicalId(t, 'AWS::Lambda::Function', id)] as { Properties: { Environment: { Variables: Record<string, unknown> } } }).Properties.Environment.Variables;

  it('reaches the API Lambda (which serves GET /metrics through $default) and no other function', () => {
    const t = template(ApiStack);
    expect(variablesOf(t, 'ApiFunction').VIGIL_METRICS_TOKEN).toBe(METRICS_TOKEN);
    expect(variablesOf(t, 'SignalsFunction')).not.toHaveProperty('VIGIL_METRICS_TOKEN');
    for (const stack of [WorkerStack, SweepStack, ProbeStack]) {
      for (const fn of Object.values(template(stack).findResources('AWS::Lambda::Function')) as { Properties: { Environment?: { Variables?: Record<string, unknown> } } }[]) {
        expect(fn.Properties.Environment?.Variables ?? {}).not.toHaveProperty('VIGIL_METRICS_TOKEN');
      }
    }
  });

  it('is passed only when set at deploy time', () => {
    expect(deploySettings({}).metricsToken).toBeUndefined();
    expect(deploySettings({ VIGIL_METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
    expect(deploySettings({ VIGIL_METRICS_TOKEN: METRICS_TOKEN }).metricsToken).toBe(METRICS_TOKEN);
  });
});

describe('WorkerStack', () => {
  it('consumes the incidents queue with partial batch failures', () => {
    const t = template(WorkerStack);
    const worker = logicalId(t, 'AWS::Lambda::Function', 'IncidentWorker');
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: worker },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp('QueueStack:.*incidents.*Arn') },
    });
    t.hasResourceProperties('AWS::Lambda::Function', { Timeout: 30, Handler: Match.stringLikeRegexp('incidentWorker\\.handler$') });
  });

  it('consumes the alerts queue in small batches that finish well within the visibility timeout', () => {
    const t = template(WorkerStack);
    const worker = logicalId(t, 'AWS::Lambda::Function', 'AlertWorker');
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: worker },
      BatchSize: ALERT_BATCH_SIZE,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp('QueueStack:.*alerts.*Arn') },
    });
    const fn = t.toJSON().Resources[worker] as { Properties: { Timeout: number; Handler: string; Environment: { Variables: Record<string, unknown> } } };
    expect(fn.Properties.Handler).toMatch(/alertWorker\.handler$/);
    // Every message of a batch may wait out a webhook; a redelivery must not overlap a live run.
    expect(fn.Properties.Timeout).toBe(CONSUMER_TIMEOUT_SECONDS);
    expect(ALERT_BATCH_SIZE * ALERT_WEBHOOK_SECONDS).toBeLessThan(fn.Properties.Timeout);
    const [alerts] = Object.values(template(QueueStack).findResources('AWS::SQS::Queue', { Properties: { QueueName: 'test-vigil-alerts' } })) as {
      Properties: { VisibilityTimeout: number };
    }[];
    expect(fn.Properties.Timeout).toBeLessThan(alerts?.Properties.VisibilityTimeout ?? 0);
    expect(fn.Properties.Environment.Variables).toMatchObject({ VIGIL_TABLE_NAME: expect.anything(), VIGIL_MAIL_FROM: 'alerts@vigil.example' });
    expect(Object.keys(fn.Properties.Environment.Variables).filter((name) => name.startsWith('VIGIL_QUEUE_URL_'))).toEqual([]);
  });
});

describe('SweepStack', () => {
  it('runs the sweep every minute through a role that may invoke only the sweep', () => {
    const t = template(SweepStack);
    const sweep = logicalId(t, 'AWS::Lambda::Function', 'Sweep');
    const role = logicalId(t, 'AWS::IAM::Role', 'SweepSchedulerRole');
    t.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'test-vigil-sweep' });
    t.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      GroupName: { Ref: logicalId(t, 'AWS::Scheduler::ScheduleGroup', 'SweepScheduleGroup') },
      Target: Match.objectLike({ Arn: { 'Fn::GetAtt': [sweep, 'Arn'] }, RoleArn: { 'Fn::GetAtt': [role, 'Arn'] } }),
    });
    t.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [Match.objectLike({ Principal: { Service: 'scheduler.amazonaws.com' }, Condition: Match.objectLike({ StringEquals: { 'aws:SourceAccount': ACCOUNT } }) })],
      },
    });
    expect(policyStatements(t, 'SweepSchedulerRole')).toEqual([{ Action: 'lambda:InvokeFunction', Effect: 'Allow', Resource: { 'Fn::GetAtt': [sweep, 'Arn'] } }]);
  });
});

describe('ProbeStack (home region)', () => {
  it('deploys the probe Lambda under the name the API and the scheduler role use', () => {
    const t = template(ProbeStack);
    t.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'test-vigil-probe',
      Handler: Match.stringLikeRegexp('probe\\.handler$'),
      Environment: { Variables: Match.objectLike({ VIGIL_TABLE_NAME: 'test-vigil-table', VIGIL_HOME_REGION: 'us-east-1' }) },
    });
    const probe = logicalId(t, 'AWS::Lambda::Function', 'Probe');
    t.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: probe }, MaximumRetryAttempts: 0 });
    const send = policyStatements(t, 'Probe').find((s) => actionsOf(s).includes('sqs:SendMessage'));
    expect(json(send?.Resource)).toContain(`:sqs:us-east-1:${ACCOUNT}:test-vigil-incidents`);
  });

  it('creates the probe schedule group and a scheduler role that may invoke only the probe functions', () => {
    const t = template(ProbeStack);
    t.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'test-vigil-probes' });
    t.hasResourceProperties('AWS::IAM::Role', { RoleName: 'test-vigil-probe-scheduler' });
    const [statement, ...rest] = policyStatements(t, 'ProbeSchedulerRole');
    expect(rest).toEqual([]);
    expect(statement?.Action).toBe('lambda:InvokeFunction');
    for (const region of ['us-east-1', 'eu-west-1', 'ap-southeast-1']) {
      expect(json(statement?.Resource)).toContain(`:lambda:${region}:${ACCOUNT}:function:test-vigil-probe`);
    }
  });
});

describe('IAM: every function gets only what it uses', () => {
  const stacks = [StorageStack, QueueStack, ProbeStack, ApiStack, WorkerStack, SweepStack];

  it('never grants a wildcard action, and table access is the item operations on the table only', () => {
    for (const stack of stacks) {
      for (const statement of allStatements(template(stack))) {
        for (const action of actionsOf(statement)) expect(action === '*' || action.endsWith(':*'), `${action} in ${stack.name}`).toBe(false);
        const dynamo = actionsOf(statement).filter((action) => action.startsWith('dynamodb:'));
        if (dynamo.length === 0) continue;
        expect(dynamo).toEqual(TABLE_ACTIONS);
        expect(json(statement.Resource)).toMatch(/StorageStack:ExportsOutputFnGetAttTable|:dynamodb:us-east-1:123456789012:table\/test-vigil-table"/);
        expect(json(statement.Resource)).not.toContain('"*"');
      }
    }
  });

  it('lets the API manage schedules in the probe group only and pass only the probe scheduler role', () => {
    const statements = policyStatements(template(ApiStack), 'ApiFunction');
    const scheduling = statements.find((s) => actionsOf(s).includes('scheduler:CreateSchedule'));
    expect(actionsOf(scheduling ?? { Action: [], Resource: null, Effect: '' })).toEqual(SCHEDULE_ACTIONS);
    expect(json(scheduling?.Resource).match(/schedule\/test-vigil-probes\/\*/g)).toHaveLength(3);
    const passRole = statements.find((s) => actionsOf(s).includes('iam:PassRole'));
    expect(json(passRole?.Resource)).toContain(`:iam::${ACCOUNT}:role/test-vigil-probe-scheduler`);
    expect(passRole?.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
    const mail = statements.find((s) => actionsOf(s).includes('ses:SendEmail'));
    expect(json(mail?.Resource)).toContain('identity/alerts@vigil.example');
  });

  it('keeps the signals Lambda to the table and the incidents queue', () => {
    const statements = policyStatements(template(ApiStack), 'SignalsFunction');
    const actions = statements.flatMap(actionsOf);
    expect(actions).not.toContain('iam:PassRole');
    expect(actions.some((a) => a.startsWith('scheduler:') || a.startsWith('ses:'))).toBe(false);
    const send = statements.find((s) => actionsOf(s).includes('sqs:SendMessage'));
    expect(json(send?.Resource)).toMatch(/incidents/);
    expect(json(send?.Resource)).not.toMatch(/alerts/);
  });

  it('lets the incident worker publish to alerts only, and the sweep to both queues', () => {
    const worker = policyStatements(template(WorkerStack), 'IncidentWorker').find((s) => actionsOf(s).includes('sqs:SendMessage'));
    expect(json(worker?.Resource)).toMatch(/alerts/);
    expect(json(worker?.Resource)).not.toMatch(/incidents/);
    const sweep = policyStatements(template(SweepStack), 'Sweep').find((s) => actionsOf(s).includes('sqs:SendMessage'));
    expect(json(sweep?.Resource)).toMatch(/incidents.*alerts/);
  });

  it('lets each queue consumer change the visibility of its own messages (retry delays) and no other queue', () => {
    for (const [fn, own, other] of [
      ['AlertWorker', /alerts/, /incidents/],
      ['IncidentWorker', /incidents/, /alerts/],
    ] as const) {
      const visibility = policyStatements(template(WorkerStack), fn).filter((s) => actionsOf(s).includes('sqs:ChangeMessageVisibility'));
      expect(visibility).toHaveLength(1);
      expect(json(visibility[0]?.Resource)).toMatch(own);
      expect(json(visibility[0]?.Resource)).not.toMatch(other);
    }
  });

  it('lets the alert worker use the table and send mail as VIGIL_MAIL_FROM, and send to no queue', () => {
    const statements = policyStatements(template(WorkerStack), 'AlertWorker');
    const actions = statements.flatMap(actionsOf);
    expect(actions.some((a) => a.startsWith('sqs:Send'))).toBe(false);
    expect(actions.some((a) => a.startsWith('scheduler:') || a === 'iam:PassRole')).toBe(false);
    expect(actions).toEqual(expect.arrayContaining(TABLE_ACTIONS));
    const mail = statements.find((s) => actionsOf(s).includes('ses:SendEmail'));
    expect(json(mail?.Resource)).toContain('identity/alerts@vigil.example');
  });
});

describe('SMS alert channels', () => {
  const smsStatements = (statements: Statement[]) => statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sns:')));

  it('let the alert worker and the API (test sends) publish SMS: sns:Publish alone, in the home region only', () => {
    for (const [stack, fn] of [
      [WorkerStack, 'AlertWorker'],
      [ApiStack, 'ApiFunction'],
    ] as const) {
      const sns = smsStatements(policyStatements(template(stack), fn));
      expect(sns, fn).toHaveLength(1);
      // A Publish to a phone number has no ARN: IAM takes it against '*' (stacks/permissions.ts).
      expect(sns[0]).toMatchObject({ Effect: 'Allow', Action: 'sns:Publish', Resource: '*', Condition: { StringEquals: { 'aws:RequestedRegion': 'us-east-1' } } });
    }
  });

  it('give no other function any SNS action', () => {
    for (const [stack, fn] of [
      [WorkerStack, 'IncidentWorker'],
      [SweepStack, 'Sweep'],
      [ApiStack, 'SignalsFunction'],
    ] as const) {
      expect(smsStatements(policyStatements(template(stack), fn)), fn).toEqual([]);
    }
  });
});

// The streams on AWS (in this file to share its one build of the home region).
/** The export of the WebSocket API's id, which every ManageConnections resource must name. */
const apiIdExport = (t: Template): string => `StreamStack:ExportsOutputRef${logicalId(t, 'AWS::ApiGatewayV2::Api', 'StreamsApi')}`;

describe('StreamStack', () => {
  it('deploys one WebSocket API with $connect, $disconnect and $default on the one streams Lambda', () => {
    const t = template(StreamStack);
    t.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    t.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'WEBSOCKET', RouteSelectionExpression: '$request.body.action' });
    const fn = logicalId(t, 'AWS::Lambda::Function', 'StreamsFunction');
    t.hasResourceProperties('AWS::Lambda::Function', { Handler: 'functions/streams.handler', Runtime: 'nodejs22.x', Timeout: 10 });
    const routes = Object.values(t.findResources('AWS::ApiGatewayV2::Route')) as {
      Properties: { RouteKey: string; Target: { 'Fn::Join': [string, [string, { Ref: string }]] } };
    }[];
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
    // Probe flips reach the streams from the home region's incidents worker.
    [WorkerStack, 'IncidentWorker'],
    // The ALERT_SENT timeline entries it records (an `incident` event each).
    [WorkerStack, 'AlertWorker'],
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

  it('leave the probe without the endpoint or ManageConnections (it posts to no stream)', () => {
    for (const [stack, id] of [[ProbeStack, 'Probe']] as const) {
      const t = template(stack);
      const fn = t.toJSON().Resources[logicalId(t, 'AWS::Lambda::Function', id)] as { Properties: { Environment: { Variables: Record<string, unknown> } } };
      expect(fn.Properties.Environment.Variables, id).not.toHaveProperty('VIGIL_STREAM_ENDPOINT');
      expect(policyStatements(t, id).flatMap(actionsOf), id).not.toContain(MANAGE_CONNECTIONS);
    }
  });
});
