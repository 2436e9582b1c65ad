import type { Deps } from '../deps.js';
import type { Plan, PlanStep } from './engine.js';
import { stepsOf } from './policies.js';
import { routeProject } from './routing.js';

export type Routing = Awaited<ReturnType<typeof routeProject>>;

/**
 * The routing of docs/guide/oncall-and-escalation.md as steps the engine runs: a policy's own steps; legacy rules
 * grouped by delay, one step per delay, no repeat; or every enabled channel at once. An incident
 * without a project is routed like a project no policy names: catch-all policies, else every channel.
 */
export function planOf(routing: Routing): Plan | null {
  if (routing.kind === 'policy') {
    const policy = routing.policy.item;
    return { steps: stepsOf(policy), repeatCount: policy.repeatCount, ackTimeoutMinutes: policy.ackTimeoutMinutes ?? null };
  }
  if (routing.kind === 'rules') {
    const byDelay = new Map<number, number[]>();
    for (const rule of routing.rules) byDelay.set(rule.delayMinutes, [...(byDelay.get(rule.delayMinutes) ?? []), rule.alertChannelId]);
    const steps: PlanStep[] = [...byDelay.entries()]
      .sort(([a], [b]) => a - b)
      .map(([delayMinutes, channelIds], position) => ({
        position,
        delayMinutes,
        targets: [...new Set(channelIds)].map((alertChannelId) => ({ targetType: 'ALERT_CHANNEL' as const, alertChannelId })),
      }));
    return { steps, repeatCount: 0, ackTimeoutMinutes: null };
  }
  if (routing.channels.length === 0) return null;
  return {
    steps: [{ position: 0, delayMinutes: 0, targets: routing.channels.map((c) => ({ targetType: 'ALERT_CHANNEL' as const, alertChannelId: c.id })) }],
    repeatCount: 0,
    ackTimeoutMinutes: null,
  };
}

export async function routeIncident(deps: Deps, incident: { workspaceId: number; projectId?: number | undefined; integrationId?: number | undefined }): Promise<Routing> {
  return routeProject(deps, incident.workspaceId, incident.projectId ?? 0, incident.integrationId);
}
