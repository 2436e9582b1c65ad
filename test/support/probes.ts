import { createTestContext, type TestContext } from '../harness.js';
import { createCheck, LONG_SESSIONS, outboundBody, type User } from './checks.js';
import type { DashboardCheck } from '../../core/checks/schema.js';
import { startLoopbackServer, type LoopbackServer } from './outbound.js';
import { runSchedule } from '../../core/probes/scheduled.js';

/** Shared steps of the probe tests (not a test file itself). */

export const ALL_REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-1'] as const;

/** A test context whose probes may reach the loopback test server (VIGIL_PROBE_ALLOW_PRIVATE). */
export const probeContext = (overrides: Record<string, string> = {}): Promise<TestContext> => createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1', ...LONG_SESSIONS, ...overrides });

/** A loopback HTTP server answering `status` (changeable between rounds). */
export async function targetServer(): Promise<LoopbackServer & { status: number }> {
  const control = { status: 200 };
  const server = await startLoopbackServer((_request, response) => {
    response.writeHead(control.status, { 'content-type': 'text/plain' });
    response.end(control.status < 400 ? 'ok' : 'broken');
  });
  return Object.assign(control, server);
}

export async function createOutboundCheck(t: TestContext, user: User, url: string, extra: Record<string, unknown> = {}): Promise<DashboardCheck> {
  return createCheck(t, user, outboundBody(user, { url, regions: [...ALL_REGIONS], failAfterConsecutive: 2, resolveAfterConsecutiveSuccess: 2, ...extra }));
}

/**
 * One round of one check: each of its enabled schedules fires once, as the local scheduler would
 * (other checks' schedules are left alone), then the clock moves one minute.
 */
export async function runRound(t: TestContext, checkId: number): Promise<void> {
  await t.deps.scheduler.runAll(async (schedule) => {
    if (schedule.name.startsWith(`probe-${checkId}-`)) await runSchedule(t.deps, schedule);
  });
  t.clock.advanceSeconds(60);
}

/** A latency clock for one run: the probe measures exactly `ms`. */
export function fixedLatency(ms: number): () => number {
  let calls = 0;
  return () => (calls++ === 0 ? 0 : ms);
}

/** Status-change messages waiting on the incidents queue for one check. */
export const pendingMessages = (t: TestContext, type: string, checkId: number): Record<string, unknown>[] =>
  t.deps.queue.peek('incidents').filter((body): body is Record<string, unknown> => {
    const message = body as Record<string, unknown>;
    return message.type === type && message.checkId === checkId;
  });
