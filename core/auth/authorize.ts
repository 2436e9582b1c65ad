import type { Actor } from '../context.js';
import type { Deps } from '../deps.js';
import { forbidden, notFound } from '../http/errors.js';
import { requireRole, type Role } from './roles.js';
import type { MembershipItem } from '../store/entities/membership.js';

/**
 * The role that manages a workspace's wiring (alert channels, escalation policies, schedules,
 * status pages, integrations; deleting projects): ADMIN on a session. An API key acts as MEMBER at
 * most, and a read_write key is what an ADMIN made for automation, so the Integration API asks that.
 */
export const manageRole = (actor: Actor): 'MEMBER' | 'ADMIN' => (actor.kind === 'apiKey' ? 'MEMBER' : 'ADMIN');

/** What a verb needs to know about the caller once scope has been checked. */
export type Scope = { workspaceId: number; role: Role; actor: Actor };

/**
 * Object-level authorisation, the first line of every verb: the caller must belong to the
 * resource's workspace (otherwise the resource does not exist for them: 404) and hold at least
 * `minimum` (otherwise 403). A read_only key acts as VIEWER, a read_write key as MEMBER.
 */
export async function authorize(deps: Deps, actor: Actor, workspaceId: number, minimum: Role, what = 'Resource'): Promise<Scope> {
  if (actor.kind === 'apiKey') return authorizeWith(actor, workspaceId, minimum, what, undefined);
  const membership = await deps.store.entities.membership.get({ workspaceId, userId: actor.userId }).go();
  return authorizeWith(actor, workspaceId, minimum, what, membership.data ?? undefined);
}

/**
 * `authorize` with a user's membership already read (undefined: none), for a verb that read it
 * together with what it needs next: the same answers, no read. An API key ignores it.
 */
export function authorizeWith(actor: Actor, workspaceId: number, minimum: Role, what: string, membership: Pick<MembershipItem, 'role'> | undefined): Scope {
  if (actor.kind === 'apiKey') {
    if (actor.workspaceId !== workspaceId) throw notFound(what);
    const role: Role = actor.permission === 'read_write' ? 'MEMBER' : 'VIEWER';
    if (actor.permission === 'read_only' && minimum !== 'VIEWER') throw forbidden('This API key is read-only');
    requireRole(role, minimum);
    return { workspaceId, role, actor };
  }
  if (!membership) throw notFound(what);
  requireRole(membership.role, minimum);
  return { workspaceId, role: membership.role, actor };
}
