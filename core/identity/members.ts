import type { Ctx } from '../context.js';
import { authorize } from '../auth/authorize.js';
import type { Role } from '../auth/roles.js';
import { findUserByEmail } from '../auth/sessions.js';
import type { Deps } from '../deps.js';
import { conflict, forbidden, notFound } from '../http/errors.js';
import { isConditionalFailure } from '../store/conditional.js';
import type { MembershipItem } from '../store/entities/membership.js';
import type { UserItem } from '../store/entities/user.js';
import { refuseIfTargeted } from '../escalation/policyTargets.js';
import { getAll } from '../store/batch.js';

export type Member = { userId: number; email: string; name: string | null; role: Role; createdAt: string };

const toMember = (m: MembershipItem, user: UserItem | undefined): Member => ({
  userId: m.userId,
  email: user?.email ?? '',
  name: user?.name ?? null,
  role: m.role,
  createdAt: m.createdAt,
});

const changedConcurrently = () => conflict('The membership changed while this request ran; try again');
const lastOwner = () => conflict('A workspace needs at least one OWNER');

export async function listMembers(ctx: Ctx, workspaceId: number): Promise<Member[]> {
  await authorize(ctx.deps, ctx.actor, workspaceId, 'VIEWER', 'Workspace');
  const { store } = ctx.deps;
  const memberships = (await store.entities.membership.query.byWorkspace({ workspaceId }).go({ pages: 'all' })).data;
  if (memberships.length === 0) return [];
  const users = await getAll(
    store,
    memberships.map((m) => ({ userId: m.userId })),
    (keys) => store.entities.user.get(keys).go(),
    'users',
  );
  const byId = new Map(users.map((u) => [u.userId, u]));
  return memberships.sort((a, b) => a.userId - b.userId).map((m) => toMember(m, byId.get(m.userId)));
}

/** Adds an existing user by email. ADMIN or higher; only an OWNER may make another OWNER. */
export async function addMember(ctx: Ctx, workspaceId: number, input: { email: string; role: Role }): Promise<Member> {
  const scope = await authorize(ctx.deps, ctx.actor, workspaceId, 'ADMIN', 'Workspace');
  if (input.role === 'OWNER' && scope.role !== 'OWNER') throw forbidden('Only an OWNER can grant the OWNER role');
  const user = await findUserByEmail(ctx.deps, input.email);
  if (!user) throw notFound('User');
  const iso = ctx.deps.clock.now().toISOString();
  try {
    const created = await ctx.deps.store.entities.membership.create({ workspaceId, userId: user.userId, role: input.role, createdAt: iso, updatedAt: iso }).go();
    return toMember(created.data, user);
  } catch (err) {
    if (isConditionalFailure(err)) throw conflict('This user is already a member of the workspace');
    throw err;
  }
}

async function loadMembership(deps: Deps, workspaceId: number, userId: number): Promise<MembershipItem> {
  const found = (await deps.store.entities.membership.get({ workspaceId, userId }).go({ consistent: true })).data;
  if (!found) throw notFound('Member');
  return found;
}

async function loadUser(deps: Deps, userId: number): Promise<UserItem | undefined> {
  return (await deps.store.entities.user.get({ userId }).go()).data ?? undefined;
}

/** ADMIN or higher. Changing an OWNER, or making one, needs an OWNER. */
export async function updateMember(ctx: Ctx, workspaceId: number, userId: number, input: { role: Role }): Promise<Member> {
  const scope = await authorize(ctx.deps, ctx.actor, workspaceId, 'ADMIN', 'Workspace');
  const target = await loadMembership(ctx.deps, workspaceId, userId);
  if ((target.role === 'OWNER' || input.role === 'OWNER') && scope.role !== 'OWNER') {
    throw forbidden('Only an OWNER can change an OWNER or grant the OWNER role');
  }
  const user = await loadUser(ctx.deps, userId);
  if (target.role === input.role) return toMember(target, user);
  const { membership } = ctx.deps.store.entities;
  const iso = ctx.deps.clock.now().toISOString();
  const write = () =>
    membership
      .patch({ workspaceId, userId })
      .set({ role: input.role, updatedAt: iso })
      .where((attr, op) => op.eq(attr.role, target.role))
      .go({ response: 'all_new' });
  const undo = () =>
    membership
      .patch({ workspaceId, userId })
      .set({ role: target.role, updatedAt: target.updatedAt })
      .where((attr, op) => op.eq(attr.role, input.role))
      .go();
  if (target.role === 'OWNER') await withOwnerGuard(ctx.deps, workspaceId, write, undo);
  else await conditional(write);
  return toMember({ ...target, role: input.role, updatedAt: iso }, user);
}

/** ADMIN or higher removes others (an OWNER only by an OWNER); anyone may leave by removing themselves. */
export async function removeMember(ctx: Ctx, workspaceId: number, userId: number): Promise<void> {
  const leaving = ctx.actor.kind === 'user' && ctx.actor.userId === userId;
  const scope = await authorize(ctx.deps, ctx.actor, workspaceId, leaving ? 'VIEWER' : 'ADMIN', 'Workspace');
  const target = await loadMembership(ctx.deps, workspaceId, userId);
  if (target.role === 'OWNER' && scope.role !== 'OWNER') throw forbidden('Only an OWNER can remove an OWNER');
  await refuseIfTargeted(ctx.deps.store, workspaceId, 'USER', userId, `User ${userId}`);
  const { membership } = ctx.deps.store.entities;
  const remove = () =>
    membership
      .delete({ workspaceId, userId })
      .where((attr, op) => op.eq(attr.role, target.role))
      .go();
  const undo = () => membership.put(target).go();
  if (target.role === 'OWNER') await withOwnerGuard(ctx.deps, workspaceId, remove, undo);
  else await conditional(remove);
  await ctx.deps.broadcaster.closeUserStreams(userId);
}

async function conditional(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (err) {
    if (isConditionalFailure(err)) throw changedConcurrently();
    throw err;
  }
}

async function countOwners(deps: Deps, workspaceId: number): Promise<number> {
  const owners = await deps.store.entities.membership.query
    .byWorkspace({ workspaceId })
    .where((attr, op) => op.eq(attr.role, 'OWNER'))
    .go({ pages: 'all', consistent: true });
  return owners.data.length;
}

/**
 * Demoting or removing an OWNER without transactions: check, write (conditional on the target
 * still being OWNER), then count again with a consistent read. If no OWNER is left (two owners
 * demoting each other at once), undo our write and refuse. The last writer to commit always saw
 * another OWNER after its own write, so the workspace never ends up ownerless.
 */
async function withOwnerGuard(deps: Deps, workspaceId: number, write: () => Promise<unknown>, undo: () => Promise<unknown>): Promise<void> {
  if ((await countOwners(deps, workspaceId)) <= 1) throw lastOwner();
  await conditional(write);
  if ((await countOwners(deps, workspaceId)) === 0) {
    await undo();
    throw lastOwner();
  }
}
