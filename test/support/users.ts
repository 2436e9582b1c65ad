import { expect } from 'vitest';
import type { TestContext, TestResponse } from '../harness.js';

/**
 * The helpers every area's tests share: who calls (a signed-up user), what came back (the body,
 * once its status is the one expected) and from where (a client address of its own, so one
 * test's requests do not use up another's rate-limit window). The area modules beside this one
 * build on them.
 */
export type User = Awaited<ReturnType<TestContext['signup']>>;

/** Asserts the status (showing the body when it differs) and returns the body. */
export function expectStatus<T>(res: TestResponse<T>, status: number): T {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  expect(res.status).toBe(status);
  return res.body;
}

/** Headers naming a new client address in `prefix` (e.g. '203.0.113') on each call: the embedded runtime reads `x-test-ip` as the caller's IP. */
export function clientAddresses(prefix: string): () => { 'x-test-ip': string } {
  let n = 0;
  return () => ({ 'x-test-ip': `${prefix}.${(++n % 250) + 1}` });
}
