import { CreateScheduleCommand, DeleteScheduleCommand, SchedulerClient, UpdateScheduleCommand, type CreateScheduleInput } from '@aws-sdk/client-scheduler';
import type { ScheduleSpec, Scheduler } from '../../ports/index.js';
import { probeFunctionVariable, regionEnvSuffix } from './env.js';

export type EventBridgeSchedulerOptions = {
  /** The schedule group; `stacks/` creates one of this name in every probe region. */
  group: string;
  /** The role Scheduler assumes to invoke the probe Lambdas (IAM is global: one role for all regions). */
  roleArn: string;
  /** Probe Lambda ARN per region, keyed by `regionEnvSuffix(region)`. */
  probeFunctionArns: Record<string, string>;
  /** One client per region: a schedule lives in the region of the Lambda it invokes. */
  clientFor?: (region: string) => SchedulerClient;
};

const NAME = /^[0-9a-zA-Z._-]{1,64}$/;

/**
 * EventBridge Scheduler's finest rate is one minute, so an interval is rounded UP to whole minutes
 * (a 30-second check is probed every minute, never more often than asked).
 */
export function rateExpression(everySeconds: number): string {
  const minutes = Math.max(1, Math.ceil(everySeconds / 60));
  return minutes === 1 ? 'rate(1 minute)' : `rate(${minutes} minutes)`;
}

/** SDK errors carry their modelled name; matching on it also survives duplicated SDK copies. */
const isError = (err: unknown, name: 'ResourceNotFoundException' | 'ConflictException'): boolean => (err as { name?: string } | null)?.name === name;

/**
 * The `Scheduler` port on EventBridge Scheduler: one schedule per (check, region) targeting that
 * region's probe Lambda. Upsert is update-then-create, so it needs no read and is idempotent;
 * the schedule's region is kept in its name by the caller, so `remove` tries every region.
 */
export class EventBridgeScheduler implements Scheduler {
  private readonly clients = new Map<string, SchedulerClient>();

  constructor(private readonly options: EventBridgeSchedulerOptions) {}

  async upsert(schedule: ScheduleSpec): Promise<void> {
    if (!NAME.test(schedule.name)) throw new Error(`invalid schedule name ${JSON.stringify(schedule.name)}`);
    const input = this.scheduleInput(schedule);
    const client = this.client(schedule.region);
    try {
      await client.send(new UpdateScheduleCommand(input));
      return;
    } catch (err) {
      if (!isError(err, 'ResourceNotFoundException')) throw err;
    }
    try {
      await client.send(new CreateScheduleCommand(input));
    } catch (err) {
      // Another upsert created it between our update and create: ours is the newer definition.
      if (!isError(err, 'ConflictException')) throw err;
      await client.send(new UpdateScheduleCommand(input));
    }
  }

  /** Deletes the schedule in every region that has a probe function; a missing one is fine. */
  async remove(name: string): Promise<void> {
    await Promise.all(Object.keys(this.options.probeFunctionArns).map((suffix) => this.removeIn(this.regionOf(suffix), name)));
  }

  private async removeIn(region: string, name: string): Promise<void> {
    try {
      await this.client(region).send(new DeleteScheduleCommand({ Name: name, GroupName: this.options.group }));
    } catch (err) {
      if (!isError(err, 'ResourceNotFoundException')) throw err;
    }
  }

  private scheduleInput(schedule: ScheduleSpec): CreateScheduleInput {
    const arn = this.options.probeFunctionArns[regionEnvSuffix(schedule.region)];
    if (!arn) throw new Error(`${probeFunctionVariable(schedule.region)} is not set: no probe function in ${schedule.region}`);
    return {
      Name: schedule.name,
      GroupName: this.options.group,
      ScheduleExpression: rateExpression(schedule.everySeconds),
      State: schedule.enabled ? 'ENABLED' : 'DISABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: arn,
        RoleArn: this.options.roleArn,
        Input: JSON.stringify(schedule.payload),
        // A missed round is not worth replaying: the next one is at most an interval away.
        RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
      },
    };
  }

  private regionOf(suffix: string): string {
    return suffix.toLowerCase().replace(/_/g, '-');
  }

  private client(region: string): SchedulerClient {
    let client = this.clients.get(region);
    if (!client) {
      client = this.options.clientFor?.(region) ?? new SchedulerClient({ region });
      this.clients.set(region, client);
    }
    return client;
  }
}
