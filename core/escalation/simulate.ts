import { authorize } from '../auth/authorize.js';
import type { Ctx } from '../context.js';
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import { membersById, type Person } from '../oncall/people.js';
import { teamUserIds } from '../oncall/teams.js';
import { loadPolicy, stepsOf } from './policies.js';
import { routeProject, schedulesOf } from './routing.js';
import type { SimulateDraft, Step, Target } from './schema.js';
import { requireTargetsInWorkspace } from './targets.js';
import { cycleLengthMinutes, firings, reachOf, unreachedNote } from './timeline.js';

/**
 * `GET /escalation-policies/:id/simulate?at=&projectId=`: who this policy would tell, and when,
 * for an incident opened at `at` (default now), read from the stored policy, schedules and teams
 * and computed by the same pure timeline as the engine. With `projectId`, it also says which
 * routing would really apply to that project (another policy may come first).
 * `POST /escalation-policies/simulate` does the same for unsaved steps (the editor's live preview).
 */
type ChannelInfo = { id: number; name: string; type: string; enabled: boolean };
export type SimulatedTarget = Target & { alertChannel: ChannelInfo | null; users: Person[]; note: string | null };
export type SimulatedStep = { cycle: number; position: number; minutesAfterOpen: number; at: string; targets: SimulatedTarget[] };

const DAY_MS = 86_400_000;

async function routingFor(deps: Deps, workspaceId: number, projectId: number) {
  const project = (await deps.store.entities.project.get({ projectId }).go()).data;
  if (!project || project.workspaceId !== workspaceId) throw notFound('Project');
  const choice = await routeProject(deps, workspaceId, projectId);
  return { kind: choice.kind, policyId: choice.kind === 'policy' ? choice.policy.id : null };
}

type Query = { at?: string | undefined; projectId?: number | undefined };
type Simulable = { workspaceId: number; enabled: boolean; repeatCount: number; steps: Step[] };

export async function simulatePolicy(ctx: Ctx, policyId: number, query: Query) {
  const policy = await loadPolicy(ctx, policyId, 'VIEWER');
  return simulate(ctx.deps, policyId, { workspaceId: policy.workspaceId, enabled: policy.enabled, repeatCount: policy.repeatCount, steps: stepsOf(policy) }, query);
}

/** Unsaved steps, checked as a create would check them (foreign ids 404); nothing is written. */
export async function simulateDraft(ctx: Ctx, draft: SimulateDraft) {
  await authorize(ctx.deps, ctx.actor, draft.workspaceId, 'VIEWER', 'Workspace');
  await requireTargetsInWorkspace(ctx.deps, draft.workspaceId, draft.steps);
  const steps = [...draft.steps].sort((a, b) => a.position - b.position);
  return simulate(ctx.deps, null, { workspaceId: draft.workspaceId, enabled: true, repeatCount: draft.repeatCount, steps }, draft);
}

async function simulate(deps: Deps, policyId: number | null, policy: Simulable, query: Query) {
  const openedAt = query.at ? new Date(query.at) : deps.clock.now();
  const { steps } = policy;
  const fired = firings({ steps, repeatCount: policy.repeatCount }, openedAt);
  const last = fired[fired.length - 1]?.at ?? openedAt;
  const targets = steps.flatMap((s) => s.targets);
  const scheduleIds = targets.flatMap((t) => (t.targetType === 'ON_CALL_SCHEDULE' ? [t.targetScheduleId] : []));
  const teamIds = [...new Set(targets.flatMap((t) => (t.targetType === 'TEAM' ? [t.targetTeamId] : [])))];
  const [schedules, teams, channels, routing] = await Promise.all([
    schedulesOf(deps, policy.workspaceId, scheduleIds, new Date(openedAt.getTime() - DAY_MS), new Date(last.getTime() + DAY_MS)),
    Promise.all(teamIds.map(async (id) => [id, await teamUserIds(deps, id)] as const)).then((e) => new Map(e)),
    deps.store.entities.alertChannel.query.byWorkspace({ workspaceId: policy.workspaceId }).go({ pages: 'all' }),
    query.projectId !== undefined ? routingFor(deps, policy.workspaceId, query.projectId) : Promise.resolve(null),
  ]);
  const channelById = new Map(channels.data.map((c) => [c.channelId, { id: c.channelId, name: c.name, type: c.type, enabled: c.enabled }]));
  const resolved = fired.map((f) => ({ f, reaches: f.targets.map((target) => ({ target, reach: reachOf(target, f.at, schedules, teams) })) }));
  const people = await membersById(
    deps,
    policy.workspaceId,
    resolved.flatMap((r) => r.reaches.flatMap((x) => x.reach.userIds)),
  );
  const simulated: SimulatedStep[] = resolved.map(({ f, reaches }) => ({
    cycle: f.cycle,
    position: f.position,
    minutesAfterOpen: f.delayMinutes,
    at: f.at.toISOString(),
    targets: reaches.map(({ target, reach }) => {
      // As the engine will: only people still members of the workspace are told (recipients.ts).
      const users = reach.userIds.flatMap((id) => people.get(id) ?? []);
      return {
        ...target,
        alertChannel: reach.channelIds[0] !== undefined ? (channelById.get(reach.channelIds[0]) ?? null) : null,
        users,
        note: reach.note ?? (users.length === 0 && reach.userIds.length > 0 ? unreachedNote(target, reach.userIds.length) : null),
      };
    }),
  }));
  return {
    policyId,
    openedAt: openedAt.toISOString(),
    projectId: query.projectId ?? null,
    routing,
    enabled: policy.enabled,
    cycleMinutes: cycleLengthMinutes(steps),
    steps: simulated,
  };
}
