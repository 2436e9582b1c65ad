import type { Ctx } from '../context.js';
import { authorize, manageRole } from '../auth/authorize.js';
import type { Role } from '../auth/roles.js';
import type { Deps } from '../deps.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { retryOnConflict } from '../store/conditional.js';
import { StoredSteps, type EscalationPolicyItem } from '../store/entities/escalationPolicy.js';
import { acquireLock, releaseLock } from '../store/locks.js';
import { pageOfQuery } from '../store/page.js';
import type { Policy, PolicyCreate, PolicyUpdate, Step, StepInput } from './schema.js';
import { requireIntegrationsInWorkspace, requireProjectsInWorkspace, requireTargetsInWorkspace } from './targets.js';

/** Escalation policies: VIEWER reads, ADMIN writes; `priority` is unique per workspace (lock item). */

/** Stored steps are the validated input, ordered by position. */
const storeSteps = (steps: readonly StepInput[]): string => JSON.stringify([...steps].sort((a, b) => a.position - b.position));
export const stepsOf = (policy: EscalationPolicyItem): Step[] => StoredSteps.parse(JSON.parse(policy.stepsJson)) as Step[];

export const toPolicy = (p: EscalationPolicyItem): Policy => ({
  id: p.policyId,
  workspaceId: p.workspaceId,
  name: p.name,
  priority: p.priority,
  projectIds: p.catchAll ? null : (p.projectIds ?? []),
  integrationIds: p.integrationIds ?? [],
  ackTimeoutMinutes: p.ackTimeoutMinutes ?? null,
  repeatCount: p.repeatCount,
  enabled: p.enabled,
  steps: stepsOf(p),
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
});

const readPolicy = async (deps: Deps, policyId: number, consistent = false) => (await deps.store.entities.escalationPolicy.get({ policyId }).go({ consistent })).data;

export async function loadPolicy(ctx: Ctx, policyId: number, minimum: Role): Promise<EscalationPolicyItem> {
  const policy = await readPolicy(ctx.deps, policyId);
  if (!policy) throw notFound('Escalation policy');
  await authorize(ctx.deps, ctx.actor, policy.workspaceId, minimum, 'Escalation policy');
  return policy;
}

const priorityScope = (workspaceId: number) => `escalation-priority#${workspaceId}`;
/** A lock younger than this belongs to a writer still between taking it and writing the policy. */
const LOCK_GRACE_MS = 60_000;

async function claimPriority(deps: Deps, workspaceId: number, priority: number, policyId: number): Promise<void> {
  const now = deps.clock.now();
  const alive = async (owner: string, lockedAt: string) => {
    if (now.getTime() - Date.parse(lockedAt) < LOCK_GRACE_MS) return true;
    const holder = await readPolicy(deps, Number(owner), true);
    return holder?.workspaceId === workspaceId && holder.priority === priority;
  };
  if (!(await acquireLock(deps.store, priorityScope(workspaceId), String(priority), String(policyId), now, alive))) {
    throw conflict(`Another escalation policy of this workspace has priority ${priority}`);
  }
}

const releasePriority = (deps: Deps, workspaceId: number, priority: number, policyId: number) =>
  releaseLock(deps.store, priorityScope(workspaceId), String(priority), String(policyId));

export async function createPolicy(ctx: Ctx, input: PolicyCreate): Promise<Policy> {
  await authorize(ctx.deps, ctx.actor, input.workspaceId, manageRole(ctx.actor), 'Workspace');
  return toPolicy(await insertPolicy(ctx.deps, input));
}

/**
 * The write behind `createPolicy`, for a caller that has checked scope itself (an importer,
 * which also stores the source's id as `importRef` so a second import finds the policy).
 */
export async function insertPolicy(deps: Deps, input: PolicyCreate, importRef?: string): Promise<EscalationPolicyItem> {
  await Promise.all([
    requireTargetsInWorkspace(deps, input.workspaceId, input.steps),
    requireProjectsInWorkspace(deps, input.workspaceId, input.projectIds),
    requireIntegrationsInWorkspace(deps, input.workspaceId, input.integrationIds),
  ]);
  const iso = deps.clock.now().toISOString();
  const policyId = await deps.store.nextId('escalationPolicy');
  await claimPriority(deps, input.workspaceId, input.priority, policyId);
  try {
    const created = await deps.store.entities.escalationPolicy
      .create({
        policyId,
        workspaceId: input.workspaceId,
        name: input.name,
        priority: input.priority,
        catchAll: input.projectIds === null,
        projectIds: input.projectIds ?? undefined,
        ...(input.integrationIds.length > 0 ? { integrationIds: input.integrationIds } : {}),
        ackTimeoutMinutes: input.ackTimeoutMinutes ?? undefined,
        repeatCount: input.repeatCount,
        enabled: input.enabled,
        stepsJson: storeSteps(input.steps),
        importRef,
        revision: 1,
        createdAt: iso,
        updatedAt: iso,
      })
      .go();
    return created.data;
  } catch (err) {
    await releasePriority(deps, input.workspaceId, input.priority, policyId);
    throw err;
  }
}

export async function listPolicies(ctx: Ctx, query: { workspaceId: number; page: number; limit: number }): Promise<Page<Policy>> {
  await authorize(ctx.deps, ctx.actor, query.workspaceId, 'VIEWER', 'Workspace');
  const policies = ctx.deps.store.entities.escalationPolicy.query.byWorkspace({ workspaceId: query.workspaceId });
  return pageOfQuery(ctx.deps.store, policies, query.page, query.limit, toPolicy);
}

export async function getPolicy(ctx: Ctx, policyId: number): Promise<Policy> {
  return toPolicy(await loadPolicy(ctx, policyId, 'VIEWER'));
}

const lostRaces = () => conflict('The policy kept changing while this request ran; try again');

/**
 * Changed fields; supplied steps replace all steps. A new priority is claimed before the write
 * and the old one released after it, so at no instant do two policies hold one priority.
 */
export async function updatePolicy(ctx: Ctx, policyId: number, input: PolicyUpdate): Promise<Policy> {
  const first = await loadPolicy(ctx, policyId, manageRole(ctx.actor));
  const { workspaceId } = first;
  await Promise.all([
    input.steps ? requireTargetsInWorkspace(ctx.deps, workspaceId, input.steps) : undefined,
    input.projectIds !== undefined ? requireProjectsInWorkspace(ctx.deps, workspaceId, input.projectIds) : undefined,
    requireIntegrationsInWorkspace(ctx.deps, workspaceId, input.integrationIds),
  ]);
  // What the policy selects after the change must not be nothing (an empty project list needs integrations).
  const projectsAfter = input.projectIds !== undefined ? input.projectIds : first.catchAll ? null : (first.projectIds ?? []);
  const integrationsAfter = input.integrationIds ?? first.integrationIds ?? [];
  if (projectsAfter?.length === 0 && integrationsAfter.length === 0) {
    throw badRequest('Validation failed: projectIds: must name a project unless integrationIds names an integration', [
      { path: 'projectIds', message: 'must name a project unless integrationIds names an integration' },
    ]);
  }
  const newPriority = input.priority !== undefined && input.priority !== first.priority ? input.priority : undefined;
  if (newPriority !== undefined) await claimPriority(ctx.deps, workspaceId, newPriority, policyId);
  let updated: EscalationPolicyItem;
  try {
    updated = await retryOnConflict(
      async (attempt) => {
        const current = attempt === 1 ? first : await readPolicy(ctx.deps, policyId, true);
        if (!current) throw notFound('Escalation policy');
        let patch = ctx.deps.store.entities.escalationPolicy.patch({ policyId }).set({
          revision: current.revision + 1,
          updatedAt: ctx.deps.clock.now().toISOString(),
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(newPriority !== undefined ? { priority: newPriority } : {}),
          ...(input.projectIds !== undefined ? { catchAll: input.projectIds === null } : {}),
          ...(input.projectIds ? { projectIds: input.projectIds } : {}),
          ...(input.integrationIds && input.integrationIds.length > 0 ? { integrationIds: input.integrationIds } : {}),
          ...(typeof input.ackTimeoutMinutes === 'number' ? { ackTimeoutMinutes: input.ackTimeoutMinutes } : {}),
          ...(input.repeatCount !== undefined ? { repeatCount: input.repeatCount } : {}),
          ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
          ...(input.steps ? { stepsJson: storeSteps(input.steps) } : {}),
        });
        const removed = [
          ...(input.ackTimeoutMinutes === null ? (['ackTimeoutMinutes'] as const) : []),
          ...(input.projectIds === null ? (['projectIds'] as const) : []),
          ...(input.integrationIds?.length === 0 ? (['integrationIds'] as const) : []),
        ];
        if (removed.length > 0) patch = patch.remove(removed);
        const written = await patch.where((attr, op) => op.eq(attr.revision, current.revision)).go({ response: 'all_new' });
        return written.data as EscalationPolicyItem;
      },
      { onExhausted: lostRaces, what: 'policy update' },
    );
  } catch (err) {
    if (newPriority !== undefined) await releasePriority(ctx.deps, workspaceId, newPriority, policyId);
    throw err;
  }
  if (newPriority !== undefined) await releasePriority(ctx.deps, workspaceId, first.priority, policyId);
  return toPolicy(updated);
}

export async function deletePolicy(ctx: Ctx, policyId: number): Promise<void> {
  const policy = await loadPolicy(ctx, policyId, manageRole(ctx.actor));
  await ctx.deps.store.entities.escalationPolicy.delete({ policyId }).go();
  await releasePriority(ctx.deps, policy.workspaceId, policy.priority, policyId);
}
