import { expect } from 'vitest';
import type { TestContext } from '../harness.js';
import type { SignalItem } from '../../core/store/entities/signal.js';
import type { Store } from '../../core/store/service.js';

import type { User } from './users.js';
export type Job = { id: number; token: string; slug: string | null; status: string };

/** A heartbeat job made through the Integration API, as a client would. */
export async function createJob(
  t: TestContext,
  user: User,
  key: string,
  body: { intervalSeconds?: number; graceSeconds?: number; slug?: string; projectId?: number } = {},
): Promise<Job> {
  const res = await t.request<Job>('POST', '/v1/jobs', {
    token: key,
    body: { name: `job ${body.slug ?? Math.random().toString(36).slice(2)}`, projectId: body.projectId ?? user.projectId, intervalSeconds: 10, graceSeconds: 5, ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Every command sent to the table from now on, through either client, by name (one per logical request). */
export function recordStoreRequests(store: Pick<Store, 'client' | 'hot'>): { commands: string[]; stop(): void } {
  const name = `count-${Math.random().toString(36).slice(2)}`;
  const commands: string[] = [];
  const stacks = [store.client.middlewareStack, store.hot.middlewareStack];
  for (const stack of stacks) {
    stack.add(
      (next, context) => async (args) => {
        commands.push(context.commandName ?? 'unknown');
        return next(args);
      },
      { step: 'initialize', name },
    );
  }
  return { commands, stop: () => stacks.forEach((stack) => stack.remove(name)) };
}

export async function signalsOf(t: TestContext, checkId: number): Promise<SignalItem[]> {
  return (await t.deps.store.entities.signal.query.byCheck({ checkId }).go({ pages: 'all' })).data;
}

export async function checkOf(t: TestContext, token: string) {
  const check = (await t.deps.store.entities.check.get({ token }).go({ consistent: true })).data;
  if (!check) throw new Error(`no check ${token}`);
  return check;
}
