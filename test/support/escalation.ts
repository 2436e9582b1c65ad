import { expect } from 'vitest';
import type { TestContext } from '../harness.js';
import type { TestUser } from './identity.js';

/** Builders for the escalation HTTP tests: a channel, a schedule and a team through the API. */
export async function channel(t: TestContext, user: TestUser, name = 'Hook', workspaceId = user.workspaceId): Promise<number> {
  const res = await t.request<{ id: number }>('POST', '/alert-channels', {
    token: user.token,
    body: { workspaceId, name, type: 'WEBHOOK', config: { url: 'https://example.com/hook' } },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

/**
 * A schedule of one daily rotation (handoffs at 09:00 UTC from 1 March), `participants` taking
 * turns in that order; `options` names it, sets its handoff notice or ends the rotation.
 */
export async function schedule(
  t: TestContext,
  user: TestUser,
  participants: number[],
  workspaceId = user.workspaceId,
  options: { name?: string; handoffNotificationMinutes?: number; effectiveUntil?: string } = {},
): Promise<number> {
  const { name = 'Primary', handoffNotificationMinutes, effectiveUntil } = options;
  const rotation = {
    type: 'daily',
    layerPosition: 0,
    effectiveFrom: '2026-03-01T09:00:00Z',
    ...(effectiveUntil ? { effectiveUntil } : {}),
    handoffTime: '09:00',
    participants: participants.map((userId, position) => ({ userId, position })),
  };
  const body = { workspaceId, name, timezone: 'UTC', ...(handoffNotificationMinutes !== undefined ? { handoffNotificationMinutes } : {}), rotations: [rotation] };
  const res = await t.request<{ id: number }>('POST', '/on-call-schedules', { token: user.token, body });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

export async function team(t: TestContext, user: TestUser, members: number[], workspaceId = user.workspaceId): Promise<number> {
  const res = await t.request<{ id: number }>('POST', '/teams', { token: user.token, body: { workspaceId, name: 'SRE' } });
  expect(res.status, res.text).toBe(201);
  for (const userId of members) {
    const added = await t.request('POST', '/team-members', { token: user.token, body: { teamId: res.body.id, userId } });
    expect(added.status, added.text).toBe(201);
  }
  return res.body.id;
}
