import { expect } from 'vitest';
import type { TestContext } from '../harness.js';
import { expectStatus, type User as SignedUp } from './users.js';
import { runSweep } from '../../core/sweep/index.js';

/** Shared steps of the deployment and maintenance window tests (not a test file itself). */
export type User = SignedUp & { key: string };
export type Job = { id: number; token: string; status: string; paused: boolean; projectId: number };

export async function member(t: TestContext, name: string): Promise<User> {
  const user = await t.signup(name);
  return { ...user, key: await t.apiKey(user) };
}

/** The tests of windows spell expectStatus (./users.ts) `ok`. */
export const ok = expectStatus;

export const v1 = <T = Record<string, unknown>>(t: TestContext, key: string, method: string, path: string, body?: unknown) =>
  t.request<T>(method, `/v1${path}`, { token: key, ...(body === undefined ? {} : { body }) });

/** A heartbeat job through the Integration API (interval 60 s, grace 5 s unless told otherwise). */
export async function createJob(t: TestContext, user: User, extra: Record<string, unknown> = {}): Promise<Job> {
  return ok(await v1<Job>(t, user.key, 'POST', '/jobs', { name: 'worker', projectId: user.projectId, intervalSeconds: 60, graceSeconds: 5, ...extra }), 201);
}

export async function ping(t: TestContext, job: Job): Promise<void> {
  ok(await t.request('GET', `/signals/ping/${job.token}`), 200);
}

export async function jobNow(t: TestContext, user: User, job: Job): Promise<Job> {
  return ok(await v1<Job>(t, user.key, 'GET', `/jobs/${job.id}`), 200);
}

/** One sweep at the clock's instant, then every queued message delivered (incident worker). */
export async function sweep(t: TestContext): Promise<void> {
  const report = await runSweep(t.deps);
  expect(report.steps.filter((step) => !step.ok)).toEqual([]);
  await t.deps.queue.drain();
}

export const minutes = (n: number): number => n * 60_000;
export const isoIn = (t: TestContext, ms: number): string => new Date(t.clock.now().getTime() + ms).toISOString();

const sessions = new Map<string, { token: string; issuedAt: number }>();
const REUSE_MS = 10 * 60_000;

/**
 * A session token valid at the clock's instant (tests move the clock past a token's 15 minutes).
 * Reused while younger than 10 minutes, so tests stay under the token endpoint's rate limit.
 */
export async function session(t: TestContext, user: User): Promise<string> {
  const now = t.clock.now().getTime();
  const cached = sessions.get(user.email);
  if (cached && now - cached.issuedAt >= 0 && now - cached.issuedAt < REUSE_MS) return cached.token;
  const res = await t.request<{ access_token: string }>('POST', '/oauth/token', { body: { grant_type: 'password', username: user.email, password: user.password } });
  const token = ok(res, 200).access_token;
  sessions.set(user.email, { token, issuedAt: now });
  return token;
}
