import type { Deps } from '../deps.js';
import { readOncePerBatch } from '../store/batchReads.js';
import { readSchedule } from '../oncall/schedules.js';
import { scheduleSpec } from '../oncall/coverage.js';
import { choosePolicy } from './choose.js';
import type { ScheduleData } from './timeline.js';

/*
 * The live routing: which policy (or legacy rule) an incident of a project goes to, and the
 * schedules its targets read. The engine (plan.ts, recipients.ts) acts on it, the what-if
 * (simulate.ts) and the assistant surface show it: one read path, so a simulation says what the
 * engine will do.
 */

/** The schedules that targets name, over `[from, to)`; one of another workspace, or deleted, is left out (its target reaches no one). */
export async function schedulesOf(deps: Deps, workspaceId: number, ids: readonly number[], from: Date, to: Date): Promise<Map<number, ScheduleData>> {
  const entries = await Promise.all(
    [...new Set(ids)].map(async (id) => {
      const schedule = await readSchedule(deps, id);
      if (!schedule || schedule.workspaceId !== workspaceId) return undefined;
      return [id, { ...(await scheduleSpec(deps, schedule, from, to)), enabled: schedule.enabled }] as const;
    }),
  );
  return new Map(entries.filter((e) => e !== undefined));
}

/**
 * How an incident of `projectId` (opened by `integrationId`, if one did) is routed (docs/guide/oncall-and-escalation.md): choosePolicy over the workspace's
 * policies, the project's legacy rules and the channels. The chosen policy comes with its item.
 * One read path for the simulation, the assistant surface and the engine.
 */
export async function routeProject(deps: Deps, workspaceId: number, projectId: number, integrationId?: number) {
  const { escalationPolicy, escalationRule, alertChannel } = deps.store.entities;
  const [policies, rules, channels] = await Promise.all([
    readOncePerBatch(deps, `policies#${workspaceId}`, () => escalationPolicy.query.byWorkspace({ workspaceId }).go({ pages: 'all' })),
    readOncePerBatch(deps, `rules#${projectId}`, () => escalationRule.query.byProject({ projectId }).go({ pages: 'all' })),
    readOncePerBatch(deps, `channels#${workspaceId}`, () => alertChannel.query.byWorkspace({ workspaceId }).go({ pages: 'all' })),
  ]);
  return choosePolicy(
    projectId,
    policies.data.map((p) => ({
      id: p.policyId,
      priority: p.priority,
      enabled: p.enabled,
      projectIds: p.catchAll ? null : (p.projectIds ?? []),
      integrationIds: p.integrationIds,
      item: p,
    })),
    rules.data.map((r) => ({ id: r.ruleId, projectId: r.projectId, delayMinutes: r.delayMinutes, enabled: r.enabled, alertChannelId: r.alertChannelId })),
    channels.data.map((c) => ({ id: c.channelId, enabled: c.enabled })),
    integrationId,
  );
}
