import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import { getAll } from '../store/batch.js';

export type Person = { id: number; email: string; name: string | null };

/**
 * Every user a schedule, override, team or policy names must be a member of its workspace; one
 * who is not is treated like any foreign id (404), so ids of other workspaces reveal nothing.
 */
export async function requireWorkspaceMembers(deps: Deps, workspaceId: number, userIds: Iterable<number>): Promise<void> {
  const wanted = [...new Set(userIds)];
  if (wanted.length === 0) return;
  const found = await getAll(
    deps.store,
    wanted.map((userId) => ({ workspaceId, userId })),
    (keys) => deps.store.entities.membership.get(keys).go({ consistent: true }),
    'memberships',
  );
  const members = new Set(found.map((m) => m.userId));
  const missing = wanted.find((id) => !members.has(id));
  if (missing !== undefined) throw notFound(`User ${missing}`);
}

/** Display data of users (batch get); unknown ids are left out. */
export async function peopleById(deps: Deps, userIds: Iterable<number>): Promise<Map<number, Person>> {
  const wanted = [...new Set(userIds)];
  if (wanted.length === 0) return new Map();
  const users = await getAll(
    deps.store,
    wanted.map((userId) => ({ userId })),
    (keys) => deps.store.entities.user.get(keys).go(),
    'users',
  );
  return new Map(users.map((u) => [u.userId, { id: u.userId, email: u.email, name: u.name ?? null }]));
}

/**
 * The same, but only those still members of `workspaceId`. Removing a member does not rewrite the
 * workspace's teams and rotations (their turns and history stay as they were), so a former member
 * can still sit in them: everything that tells a person about a workspace (escalation steps, the
 * notices that follow an alert, handoff mail, the policy preview) resolves people through this,
 * and a former member hears nothing more from it. A consistent read, so a removal counts at once.
 */
export async function membersById(deps: Deps, workspaceId: number, userIds: Iterable<number>): Promise<Map<number, Person>> {
  const wanted = [...new Set(userIds)];
  if (wanted.length === 0) return new Map();
  const [people, memberships] = await Promise.all([
    peopleById(deps, wanted),
    getAll(
      deps.store,
      wanted.map((userId) => ({ workspaceId, userId })),
      (keys) => deps.store.entities.membership.get(keys).go({ consistent: true }),
      'memberships',
    ),
  ]);
  const members = new Set(memberships.map((m) => m.userId));
  return new Map([...people].filter(([id]) => members.has(id)));
}
