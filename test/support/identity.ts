import { expect } from 'vitest';
import type { Role } from '../../core/auth/roles.js';
import type { TestContext } from '../harness.js';

import type { User as TestUser } from './users.js';

export type { TestUser };

/** Adds `user` to `owner`'s workspace with `role`, through the API. */
export async function addToWorkspace(t: TestContext, owner: TestUser, user: TestUser, role: Role): Promise<void> {
  const res = await t.request('POST', `/workspaces/${owner.workspaceId}/members`, { token: owner.token, body: { email: user.email, role } });
  expect(res.status, res.text).toBe(201);
}

/**
 * One workspace with a user in every role (each also owns a workspace of their own from
 * sign-up), plus an outsider who belongs to none of it.
 */
export async function createTeam(t: TestContext, label: string) {
  const owner = await t.signup(`${label}-owner`);
  const admin = await t.signup(`${label}-admin`);
  const member = await t.signup(`${label}-member`);
  const viewer = await t.signup(`${label}-viewer`);
  const outsider = await t.signup(`${label}-outsider`);
  await addToWorkspace(t, owner, admin, 'ADMIN');
  await addToWorkspace(t, owner, member, 'MEMBER');
  await addToWorkspace(t, owner, viewer, 'VIEWER');
  return { workspaceId: owner.workspaceId, projectId: owner.projectId, owner, admin, member, viewer, outsider };
}

export type Team = Awaited<ReturnType<typeof createTeam>>;
