import { planLimitExceeded } from '../auth/plans.js';
import { isConditionalFailure } from '../store/conditional.js';
import type { Ctx } from '../context.js';
import { authorize } from '../auth/authorize.js';
import { PLAN_LIMITS } from '../auth/plans.js';
import type { Role } from '../auth/roles.js';
import { createWorkspace as createWorkspaceWithOwner, publicUser, requireUser, toWorkspace } from '../auth/sessions.js';
import type { Deps } from '../deps.js';
import { badRequest, forbidden, notFound } from '../http/errors.js';
import type { WorkspaceItem } from '../store/entities/workspace.js';
import { getAll } from '../store/batch.js';

/** The detail adds the plan's limits and the caller's role to the one view of a workspace. */
export const toWorkspaceDetail = (w: WorkspaceItem, role: Role) => ({ ...toWorkspace(w), limits: { ...PLAN_LIMITS[w.plan] }, role });

export type WorkspaceDetail = ReturnType<typeof toWorkspaceDetail>;

/** The caller's workspaces with their role in each; a key sees only its own workspace. */
export async function listWorkspaces(ctx: Ctx): Promise<WorkspaceDetail[]> {
  if (ctx.actor.kind === 'apiKey') return [await getWorkspace(ctx, ctx.actor.workspaceId)];
  return (await workspacesOfUser(ctx.deps, ctx.actor.userId)).map(({ workspace, role }) => toWorkspaceDetail(workspace, role));
}

/** `GET /me`: the signed-in user with their workspaces and their role in each. */
export async function getMe(ctx: Ctx) {
  if (ctx.actor.kind !== 'user') throw badRequest('Session required');
  const userId = ctx.actor.userId;
  const user = requireUser((await ctx.deps.store.entities.user.get({ userId }).go()).data);
  const workspaces = await workspacesOfUser(ctx.deps, userId);
  return { ...publicUser(user), workspaces: workspaces.map(({ workspace, role }) => ({ ...toWorkspace(workspace), role })) };
}

/** The user's workspaces in id order, each with the user's role there. */
async function workspacesOfUser(deps: Deps, userId: number): Promise<{ workspace: WorkspaceItem; role: Role }[]> {
  const memberships = (await deps.store.entities.membership.query.byUser({ userId }).go({ pages: 'all' })).data;
  if (memberships.length === 0) return [];
  const roleOf = new Map(memberships.map((m) => [m.workspaceId, m.role]));
  const workspaces = await getAll(
    deps.store,
    memberships.map((m) => ({ workspaceId: m.workspaceId })),
    (keys) => deps.store.entities.workspace.get(keys).go(),
    'workspaces',
  );
  return workspaces.sort((a, b) => a.workspaceId - b.workspaceId).map((workspace) => ({ workspace, role: roleOf.get(workspace.workspaceId) ?? 'VIEWER' }));
}

/** A new workspace on the install's default plan, owned by the caller, with a Default project. */
export async function createWorkspace(ctx: Ctx, input: { name: string }): Promise<WorkspaceDetail> {
  if (ctx.actor.kind !== 'user') throw forbidden('Only a signed-in user can create a workspace');
  await takeWorkspaceSlot(ctx.deps, ctx.actor.userId);
  const workspace = await createWorkspaceWithOwner(ctx.deps, ctx.actor.userId, input.name);
  return toWorkspaceDetail(workspace, 'OWNER');
}

/**
 * Every workspace gets the install's default plan, so creation is limited per user: a counter on
 * the user item, raised on the condition that it is below the limit (exact under concurrency).
 */
async function takeWorkspaceSlot(deps: Deps, userId: number): Promise<void> {
  const limit = deps.config.maxWorkspacesPerUser;
  const refuse = () => planLimitExceeded(`A user may create at most ${limit} workspaces`);
  // The sign-up workspace is the first; the counter holds the ones created since.
  if (limit <= 1) throw refuse();
  try {
    await deps.store.entities.user
      .patch({ userId })
      .add({ workspacesCreated: 1 })
      .where((attr, op) => `${op.notExists(attr.workspacesCreated)} OR ${op.lt(attr.workspacesCreated, limit - 1)}`)
      .go();
  } catch (err) {
    if (isConditionalFailure(err)) throw refuse();
    throw err;
  }
}

async function loadWorkspace(deps: Deps, workspaceId: number): Promise<WorkspaceItem> {
  const workspace = (await deps.store.entities.workspace.get({ workspaceId }).go()).data;
  if (!workspace) throw notFound('Workspace');
  return workspace;
}

export async function getWorkspace(ctx: Ctx, workspaceId: number): Promise<WorkspaceDetail> {
  const scope = await authorize(ctx.deps, ctx.actor, workspaceId, 'VIEWER', 'Workspace');
  return toWorkspaceDetail(await loadWorkspace(ctx.deps, workspaceId), scope.role);
}

/** Only the owner renames. The plan is not client-settable (the schema refuses it). */
export async function updateWorkspace(ctx: Ctx, workspaceId: number, input: { name?: string | undefined }): Promise<WorkspaceDetail> {
  const scope = await authorize(ctx.deps, ctx.actor, workspaceId, 'OWNER', 'Workspace');
  const current = await loadWorkspace(ctx.deps, workspaceId);
  if (input.name === undefined) return toWorkspaceDetail(current, scope.role);
  const updated = await ctx.deps.store.entities.workspace
    .patch({ workspaceId })
    .set({ name: input.name, updatedAt: ctx.deps.clock.now().toISOString() })
    .go({ response: 'all_new' });
  return toWorkspaceDetail({ ...current, ...updated.data }, scope.role);
}
