import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';

export type Person = { id: number; email: string; name: string | null };

/**
 * Every user a schedule, override, team or policy names must be a member of its workspace; one
 * who is not is treated like any foreign id (404), so ids of other workspaces reveal nothing.
 */
export async function requireWorkspaceMembers(deps: Deps, workspaceId: number, userIds: Iterable<number>): Promise<void> {
  const wanted = [...new Set(userIds)];
  if (wanted.length === 0) return;
  const found = (await deps.store.entities.membership.get(wanted.map((userId) => ({ workspaceId, userId }))).go({ consistent: true })).data;
  const members = new Set(found.map((m) => m.userId));
  const missing = wanted.find((id) => !members.has(id));
  if (missing !== undefined) throw notFound(`User ${missing}`);
}

/** Display data of users (batch get); unknown ids are left out. */
export async function peopleById(deps: Deps, userIds: Iterable<number>): Promise<Map<number, Person>> {
  const wanted = [...new Set(userIds)];
  if (wanted.length === 0) return new Map();
  const users = (await deps.store.entities.user.get(wanted.map((userId) => ({ userId }))).go()).data;
  return new Map(users.map((u) => [u.userId, { id: u.userId, email: u.email, name: u.name ?? null }]));
}
