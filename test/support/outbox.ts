import { vi } from 'vitest';
import type { TestContext } from '../harness.js';
import { handleAlertMessages } from '../../core/escalation/dispatch.js';
import { alertHandOff } from '../../core/escalation/handOff.js';
import { handleIncidentMessages } from '../../core/incidents/worker.js';
import { consumeIncidentsAndAlerts } from '../../core/runtime.js';
import { runSweep } from '../../core/sweep/index.js';
import { OUTBOX_GRACE_MS } from '../../core/outbox/sweep.js';

/** Shared fault injection of the outbox tests (not a test file itself). */

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand']);
const touchesOutbox = (input: unknown): boolean => JSON.stringify(input ?? null).includes('"outbox"');

export type Crash = { crashed(): boolean; stop(): void };

/**
 * A process dying right after its `after`-th store write, counted from the first write that
 * records owed messages (the state change itself): every write before landed, and the next store
 * request or queue publish throws, once. Both store clients (the ping path's too) and the queue.
 * Alert delivery (by the alerts consumer, or by the incidents consumer for its own incidents) is left out: its one window (a crash between a send and its record, which sends
 * again) is the delivery rules' business, and receivers drop that duplicate by its webhook-id.
 */
export function crashAfterWrites(t: TestContext, after: number): Crash {
  const name = `crash-${Math.random().toString(36).slice(2)}`;
  let counting = false;
  let writes = 0;
  let fired = false;
  let delivering = false;
  const due = (): boolean => {
    if (fired || delivering || !counting || writes < after) return false;
    fired = true;
    return true;
  };
  const stacks = [t.deps.store.client.middlewareStack, t.deps.store.hot.middlewareStack];
  for (const stack of stacks) {
    stack.add(
      (next, context) => async (args) => {
        if (due()) throw new Error(`injected crash after write ${after}`);
        const isWrite = WRITES.has(context.commandName ?? '');
        if (isWrite && !counting && touchesOutbox(args.input)) counting = true;
        const result = await next(args);
        if (isWrite && counting && !delivering) writes++;
        return result;
      },
      { step: 'initialize', name },
    );
  }
  const publish = t.deps.queue.publish.bind(t.deps.queue);
  const spy = vi.spyOn(t.deps.queue, 'publish').mockImplementation(async (queue, bodies) => {
    if (due()) throw new Error(`injected crash after write ${after}`);
    return publish(queue, bodies);
  });
  t.deps.queue.consume('alerts', async (messages) => {
    delivering = true;
    try {
      return await handleAlertMessages(t.deps, messages);
    } finally {
      delivering = false;
    }
  });
  // The incidents consumer sends the alerts of the incidents it writes (core/runtime.ts): those sends
  // are deliveries too. What follows them is not: the outbox clear, and the escalation's plan.
  const handOff = alertHandOff({});
  t.deps.queue.consume('incidents', (messages) =>
    handleIncidentMessages(t.deps, messages, {
      alertHandOff: async (...args) => {
        delivering = true;
        try {
          return await handOff(...args);
        } finally {
          delivering = false;
        }
      },
    }),
  );
  return {
    crashed: () => fired,
    stop: () => {
      for (const stack of stacks) stack.remove(name);
      spy.mockRestore();
      consumeIncidentsAndAlerts(t.deps, { handOffAlerts: true });
    },
  };
}

/** The evaluator sweep once the fast path's grace has passed, then every queue drained. */
export async function sweepAndDeliver(t: TestContext): Promise<void> {
  t.clock.advance(OUTBOX_GRACE_MS);
  await runSweep(t.deps);
  await t.deps.queue.drain();
}

/**
 * For each crash point of a state change (after its first write, its second, ... until it runs
 * through without crashing): a fresh `setup`, the change with the crash, a sweep, and `verify`
 * that the owed effect happened exactly once. Returns how many crash points there were.
 */
export async function atEveryCrashPoint<S>(
  t: TestContext,
  steps: { setup(): Promise<S>; act(state: S): Promise<unknown>; verify(state: S, crashAfter: number): Promise<void> },
): Promise<number> {
  for (let after = 1; after < 50; after++) {
    const state = await steps.setup();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const crash = crashAfterWrites(t, after);
    try {
      await steps.act(state);
    } catch {
      // The crash: whatever the request or worker would have answered is gone with it.
    } finally {
      crash.stop();
      logged.mockRestore();
    }
    await sweepAndDeliver(t);
    await steps.verify(state, after);
    if (!crash.crashed()) return after - 1;
  }
  throw new Error('the state change never ran through without a crash');
}

/** Every body published from now on, as `<queue> <type>` (each costs the queue lane a publish, a lease and an acknowledgement). */
export function publishedTypes(t: TestContext): { types: string[]; stop(): void } {
  const types: string[] = [];
  const publish = t.deps.queue.publish.bind(t.deps.queue);
  const spy = vi.spyOn(t.deps.queue, 'publish').mockImplementation(async (queue, bodies) => {
    for (const body of bodies) types.push(`${queue} ${(body as { type?: string }).type ?? '?'}`);
    return publish(queue, bodies);
  });
  return { types, stop: () => spy.mockRestore() };
}
