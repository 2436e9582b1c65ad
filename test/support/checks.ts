import type { TestContext } from '../harness.js';
import type { DashboardCheck } from '../../core/checks/schema.js';
import { expectStatus, type User } from './users.js';

/** Shared steps of the checks tests (not a test file itself); the user and status helpers are ./users.ts's. */
export { expectStatus, type User };

export const inboundBody = (user: User, extra: Record<string, unknown> = {}) => ({
  name: 'nightly backup',
  projectId: user.projectId,
  intervalSeconds: 300,
  graceSeconds: 30,
  ...extra,
});

export const outboundBody = (user: User, extra: Record<string, unknown> = {}) => ({
  name: 'homepage',
  projectId: user.projectId,
  checkMode: 'OUTBOUND',
  intervalSeconds: 60,
  graceSeconds: 5,
  url: 'https://example.com/health',
  ...extra,
});

export async function createCheck(t: TestContext, user: User, body: Record<string, unknown>): Promise<DashboardCheck> {
  const res = await t.request<DashboardCheck>('POST', '/checks', { token: user.token, body });
  if (res.status !== 201) throw new Error(`create check failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Adds `member` to `owner`'s workspace with `role`, straight in the store (no members API needed). */
export async function addMember(t: TestContext, owner: User, member: User, role: 'ADMIN' | 'MEMBER' | 'VIEWER'): Promise<void> {
  const iso = t.clock.now().toISOString();
  await t.deps.store.entities.membership.create({ workspaceId: owner.workspaceId, userId: member.userId, role, createdAt: iso, updatedAt: iso }).go();
}

/** Sessions that outlive the test file, so tests may move the clock freely. */
export const LONG_SESSIONS = { VIGIL_ACCESS_TOKEN_TTL_SECONDS: '86400' };

/** Each test starts in a new rate-limit window (100 requests per 60 s per caller). */
export function freshRateWindow(t: TestContext): void {
  t.clock.advanceSeconds(61);
}
