import { onCallAt, type ScheduleSpec } from '../oncall/rotation.js';
import type { Step, Target } from './schema.js';

/**
 * When each step of a policy fires and who it reaches (docs/guide/oncall-and-escalation.md "Escalation: how it works"):
 * step s of cycle k (0 <= k <= repeatCount) fires at `openedAt + k·L + d_s`, where
 * `L = d_last + max(5, d_last - d_prev)` minutes (`d_prev` = 0 for a one-step policy).
 * Targets resolve at the instant their step fires: a schedule pages whoever is on call then.
 * Pure: the simulation endpoint and the engine share it, given the schedules and teams as data.
 */
const MINUTE_MS = 60_000;
const MIN_REPEAT_GAP_MINUTES = 5;

export function cycleLengthMinutes(steps: readonly Pick<Step, 'delayMinutes'>[]): number {
  const delays = steps.map((s) => s.delayMinutes).sort((a, b) => a - b);
  const last = delays[delays.length - 1] ?? 0;
  const previous = delays.length > 1 ? (delays[delays.length - 2] ?? 0) : 0;
  return last + Math.max(MIN_REPEAT_GAP_MINUTES, last - previous);
}

export type Firing = { cycle: number; position: number; delayMinutes: number; at: Date; targets: readonly Target[] };

/** Every (cycle, step) of a policy for an incident opened at `openedAt`, in firing order. */
export function firings(policy: { steps: readonly Step[]; repeatCount: number }, openedAt: Date): Firing[] {
  const steps = [...policy.steps].sort((a, b) => a.position - b.position);
  const cycle = cycleLengthMinutes(steps);
  const result: Firing[] = [];
  for (let k = 0; k <= policy.repeatCount; k++) {
    for (const step of steps) {
      const minutes = k * cycle + step.delayMinutes;
      result.push({ cycle: k, position: step.position, delayMinutes: minutes, at: new Date(openedAt.getTime() + minutes * MINUTE_MS), targets: step.targets });
    }
  }
  return result;
}

export type ScheduleData = ScheduleSpec & { enabled: boolean };
export type Reach = { channelIds: number[]; userIds: number[]; note: string | null };

/** Who one target reaches at `at`. A disabled schedule, or one with nobody on call, reaches nobody and says so. */
export function reachOf(target: Target, at: Date, schedules: ReadonlyMap<number, ScheduleData>, teams: ReadonlyMap<number, readonly number[]>): Reach {
  switch (target.targetType) {
    case 'ALERT_CHANNEL':
      return { channelIds: [target.alertChannelId], userIds: [], note: null };
    case 'USER':
      return { channelIds: [], userIds: [target.targetUserId], note: null };
    case 'TEAM': {
      const members = teams.get(target.targetTeamId) ?? [];
      return { channelIds: [], userIds: [...members], note: members.length === 0 ? 'the team has no members' : null };
    }
    case 'ON_CALL_SCHEDULE': {
      const schedule = schedules.get(target.targetScheduleId);
      if (!schedule || !schedule.enabled) return { channelIds: [], userIds: [], note: 'the schedule is disabled' };
      const found = onCallAt(schedule, at);
      return found ? { channelIds: [], userIds: [found.userId], note: null } : { channelIds: [], userIds: [], note: 'nobody is on call' };
    }
  }
}

/**
 * Why a target reached nobody when its reach carries no note of its own: `named` is how many
 * people it named (a team's members, the user on call), none of them a member of the workspace
 * any more, or none at all.
 */
export function unreachedNote(target: Target, named: number): string {
  if (target.targetType === 'ALERT_CHANNEL') return 'the channel is disabled or gone';
  return named > 0 ? 'nobody to tell: former members of the workspace are not told' : 'nobody to tell';
}
