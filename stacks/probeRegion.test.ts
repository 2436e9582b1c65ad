import { Match } from 'aws-cdk-lib/assertions';
import { App, getStack } from 'sst/constructs';
import { initProject } from 'sst/project.js';
import { describe, expect, it } from 'vitest';
import { composeStacks } from './index.js';
import { ProbeStack } from './ProbeStack.js';
import { deploySettings } from './settings.js';
import { StorageStack } from './StorageStack.js';
import { ACCOUNT, buildApp, json, policyStatements } from '../test/support/stacks.js';

describe('a probe region other than home (sst deploy --region eu-west-1)', () => {
  it('deploys only its ProbeStack: a probe writing to the home region, the schedule group, no scheduler role', async () => {
    // A stage of its own: stacks/home.test.ts builds a ProbeStack at the same construct address under
    // stage `test` at the same time (test/support/stacks.ts).
    const template = await buildApp('eu-west-1', { VIGIL_HOME_REGION: 'us-east-1' }, 'probe');
    const probe = template(ProbeStack);
    probe.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'probe-vigil-probes' });
    probe.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'probe-vigil-probe',
      Runtime: 'nodejs22.x',
      Environment: {
        Variables: Match.objectLike({
          VIGIL_HOME_REGION: 'us-east-1',
          VIGIL_TABLE_NAME: 'probe-vigil-table',
          VIGIL_QUEUE_URL_INCIDENTS: { 'Fn::Join': ['', ['https://sqs.us-east-1.', { Ref: 'AWS::URLSuffix' }, `/${ACCOUNT}/probe-vigil-incidents`]] },
        }),
      },
    });
    const statements = json(policyStatements(probe, 'Probe'));
    // Flips stream from the home region's incidents worker: a probe region posts to no WebSocket API.
    expect(statements).not.toContain('execute-api');
    expect(json(probe.toJSON())).not.toContain('VIGIL_STREAM_ENDPOINT');
    expect(statements).toContain(`:dynamodb:us-east-1:${ACCOUNT}:table/probe-vigil-table`);
    expect(statements).toContain(`:sqs:us-east-1:${ACCOUNT}:probe-vigil-incidents`);
    probe.resourcePropertiesCountIs('AWS::IAM::Role', { RoleName: 'probe-vigil-probe-scheduler' }, 0);
    probe.resourceCountIs('AWS::DynamoDB::Table', 0);
    expect(getStack(ProbeStack).region).toBe('eu-west-1');
    expect(() => getStack(StorageStack)).toThrow();
  });

  it('refuses a region that is not a probe region', async () => {
    await initProject({ stage: 'test' });
    const app = new App({ mode: 'deploy', stage: 'test', name: 'vigil', region: 'us-west-2', account: ACCOUNT });
    expect(() => composeStacks(app)).toThrow('us-west-2 is not one of them');
  });
});

describe('deploySettings', () => {
  it('defaults the home region and passes through only set values', () => {
    expect(deploySettings({})).toEqual({ homeRegion: 'us-east-1', mailFrom: undefined, mailConfigurationSet: undefined, passThrough: {} });
    expect(deploySettings({ VIGIL_HOME_REGION: 'ap-southeast-1', VIGIL_KEY_PREFIX: 'acme', VIGIL_DEFAULT_PLAN: '' })).toMatchObject({
      homeRegion: 'ap-southeast-1',
      passThrough: { VIGIL_KEY_PREFIX: 'acme' },
    });
  });

  it('refuses a home region without a probe function', () => {
    expect(() => deploySettings({ VIGIL_HOME_REGION: 'us-west-2' })).toThrow('VIGIL_HOME_REGION');
  });
});
