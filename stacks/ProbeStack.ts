import { Duration } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Function, type StackContext } from 'sst/constructs';
import { sendTo, storeEnvironment, tableReadWrite } from './permissions.js';
import { deploySettings, PROBE_REGIONS, resourceArns, resourceNames, type ProbeRegion } from './settings.js';

/**
 * One per probe region (deployed by `sst deploy --region <r>`): that region's probe Lambda
 * (`<stage>-vigil-probe`, so the API and the scheduler role can name it in every region) and the
 * schedule group the API fills with one schedule per outbound check. The probe writes to the
 * home region's table and queue. The home region also holds the role Scheduler assumes in every
 * region (IAM is global).
 */
export function ProbeStack({ app, stack }: StackContext) {
  const settings = deploySettings();
  const region = app.region as ProbeRegion;
  const names = resourceNames(app);
  const arns = resourceArns(stack, app, settings.homeRegion);

  const scheduleGroup = new CfnScheduleGroup(stack, 'ProbeScheduleGroup', { name: names.probeScheduleGroup });

  const probe = new Function(stack, 'Probe', {
    handler: 'functions/probe.handler',
    functionName: names.probeFunction,
    description: `Vigil HTTP probe (${region})`,
    timeout: 60,
    memorySize: 256,
    // A missed round is not replayed: the next one is at most an interval away.
    retryAttempts: 0,
    maxEventAge: Duration.seconds(60),
    environment: { ...storeEnvironment(names.table, settings), VIGIL_QUEUE_URL_INCIDENTS: arns.queueUrl('incidents') },
    permissions: [tableReadWrite(arns.table), sendTo([arns.queue('incidents')])],
  });

  let schedulerRole: Role | undefined;
  if (region === settings.homeRegion) {
    schedulerRole = new Role(stack, 'ProbeSchedulerRole', {
      roleName: names.probeSchedulerRole,
      description: 'EventBridge Scheduler invokes the Vigil probe functions',
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': PROBE_REGIONS.map((r) => arns.probeScheduleGroupOf(r)) },
        },
      }),
    });
    schedulerRole.addToPolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: PROBE_REGIONS.map((r) => arns.probeFunction(r)) }));
  }

  stack.addOutputs({ ProbeFunctionArn: probe.functionArn, ProbeScheduleGroup: names.probeScheduleGroup });
  return { probe, scheduleGroup, schedulerRole };
}
