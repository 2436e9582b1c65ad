import { PLAN_LIMITS, planLimitExceeded, type PlanLimits } from '../auth/plans.js';
import type { Deps } from '../deps.js';
import { HttpError, notFound } from '../http/errors.js';
import type { CheckItem } from '../store/entities/check.js';
import type { WorkspaceItem } from '../store/entities/workspace.js';
import type { OutboundConfig } from './outboundSchema.js';
import { takeCheckSlots } from './quota.js';

export type CheckMode = CheckItem['checkMode'];
export type CheckType = CheckItem['checkType'];

/** A check as every surface describes it before it is stored: the rules below judge this. */
export type CheckDraft = {
  workspaceId: number;
  projectId: number | undefined;
  dependencyId: number | undefined;
  dependencyIds: number[] | undefined;
  name: string;
  slug: string | null;
  checkMode: CheckMode;
  checkType: CheckType;
  intervalSeconds: number;
  graceSeconds: number;
  muteNotifications: boolean;
  downSeverity: CheckItem['downSeverity'];
  lateSeverity: CheckItem['lateSeverity'];
  outbound: OutboundConfig | undefined;
  /** Heartbeat job rules, stored form (core/checks/jobRules.ts); undefined: none. */
  jobRules?: string | undefined;
};

export const draftOf = (check: CheckItem, outbound: OutboundConfig | undefined): CheckDraft => ({
  workspaceId: check.workspaceId,
  projectId: check.projectId,
  dependencyId: check.dependencyId,
  dependencyIds: check.dependencyIds,
  name: check.name,
  slug: check.slug ?? null,
  checkMode: check.checkMode,
  checkType: check.checkType,
  intervalSeconds: check.intervalSeconds,
  graceSeconds: check.graceSeconds,
  muteNotifications: check.muteNotifications,
  downSeverity: check.downSeverity,
  lateSeverity: check.lateSeverity,
  outbound,
  jobRules: check.jobRules,
});

const PAIRED_TYPE: Record<CheckMode, CheckType> = { OUTBOUND: 'HTTP', INBOUND: 'HEARTBEAT' };

/** OUTBOUND pairs with HTTP only and INBOUND with HEARTBEAT only; omitted: derived (spec 400). */
export function resolveCheckType(mode: CheckMode, requested: CheckType | undefined): CheckType {
  const paired = PAIRED_TYPE[mode];
  if (requested !== undefined && requested !== paired) {
    throw new HttpError('CHECK_TYPE_MISMATCH', `checkType ${requested} cannot be used with checkMode ${mode}; use ${paired}`, [
      { path: 'checkType', message: `must be ${paired} when checkMode is ${mode}` },
    ]);
  }
  return paired;
}

/** Exactly one of projectId and dependencyId; outbound checks belong to a project. */
export function assertAssociation(draft: Pick<CheckDraft, 'projectId' | 'dependencyId' | 'checkMode'>): void {
  const hasProject = draft.projectId !== undefined;
  const hasDependency = draft.dependencyId !== undefined;
  if (hasProject === hasDependency) {
    throw new HttpError('VALIDATION_ERROR', 'Exactly one of projectId and dependencyId is required', [
      { path: hasProject ? 'dependencyId' : 'projectId', message: 'exactly one of projectId and dependencyId is required' },
    ]);
  }
  if (draft.checkMode === 'OUTBOUND' && hasDependency) {
    throw new HttpError('VALIDATION_ERROR', 'Outbound checks cannot be associated with a dependency; give a projectId', [
      { path: 'dependencyId', message: 'not allowed for OUTBOUND checks' },
    ]);
  }
}

/** The limits of a workspace's plan (a missing workspace: 404). */
export function limitsOfPlan(workspace: Pick<WorkspaceItem, 'plan'> | null | undefined): PlanLimits {
  if (!workspace) throw notFound('Workspace');
  return PLAN_LIMITS[workspace.plan];
}

export async function planLimitsOf(deps: Deps, workspaceId: number): Promise<PlanLimits> {
  return limitsOfPlan((await deps.store.entities.workspace.get({ workspaceId }).go()).data);
}

/**
 * The plan's limits (docs/guide/access.md "Plans") that need no store: interval floor and whether notifications may be
 * muted. On an update only what changed is judged, so a workspace that was downgraded can still
 * edit its existing checks' names. Returns whether the check must take slots in the workspace's
 * counter (a new check, or one turned OUTBOUND).
 */
export function judgePlan(limits: PlanLimits, next: CheckDraft, before: CheckDraft | undefined): boolean {
  const modeChanged = before !== undefined && before.checkMode !== next.checkMode;
  if (!before || modeChanged || before.intervalSeconds !== next.intervalSeconds) {
    const floor = next.checkMode === 'OUTBOUND' ? limits.outboundIntervalFloorSeconds : limits.intervalFloorSeconds;
    if (next.intervalSeconds < floor) throw planLimitExceeded(`Your plan allows intervals of ${floor} seconds or more`);
  }
  if (next.muteNotifications && !limits.canMute && !(before?.muteNotifications ?? false)) {
    throw planLimitExceeded('Your plan does not allow muting notifications');
  }
  const needsOutboundRoom = next.checkMode === 'OUTBOUND' && (!before || modeChanged);
  return !before || needsOutboundRoom;
}

/** Takes the slots judgePlan asked for (quota.ts): exact under concurrent creates, 403 when full. */
export const takePlanSlots = (deps: Deps, limits: PlanLimits, next: CheckDraft, isNew: boolean): Promise<void> =>
  takeCheckSlots(deps, next.workspaceId, next.checkMode, { checks: limits.checks, outbound: limits.outboundChecks }, isNew);

/**
 * The plan's limits (docs/guide/access.md "Plans"): check count, outbound check count, interval floor and whether
 * notifications may be muted (judgePlan). A new check (or one turned OUTBOUND) takes its slots in
 * the workspace's counter (quota.ts).
 */
export async function enforcePlan(deps: Deps, next: CheckDraft, before: CheckDraft | undefined): Promise<void> {
  const limits = await planLimitsOf(deps, next.workspaceId);
  if (!judgePlan(limits, next, before)) return;
  // Last, so that nothing after it refuses the check: the caller gives the slots back if its write fails.
  await takePlanSlots(deps, limits, next, !before);
}
