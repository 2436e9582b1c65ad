import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { notFound } from '../http/errors.js';
import { consumeMessages, handler, type HandlerTable } from './consumer.js';

const Ping = z.object({ type: z.literal('ping'), n: z.number().int() });

/** A handler table whose `ping` handler does what each message's `n` says. */
function table(seen: number[]): HandlerTable {
  return {
    ping: handler(Ping, async ({ n }) => {
      if (n === 404) throw notFound('Check');
      if (n === 500) throw new Error('store hiccup');
      if (n === 429) return { unfinished: 'channel 7: rate limited', retryAfterSeconds: 120 };
      if (n === 503) return { unfinished: 'channel 8: unavailable', retryAfterSeconds: null };
      seen.push(n);
      return undefined;
    }),
  };
}

describe('consumeMessages', () => {
  it('drops what can never succeed, retries what may, and handles the rest of the batch regardless', async () => {
    const seen: number[] = [];
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const result = await consumeMessages('test', table(seen), [
      { id: 'malformed', body: { type: 'ping', n: 'one' } },
      { id: 'untyped', body: { n: 1 } },
      { id: 'unknown', body: { type: 'pong' } },
      { id: 'gone', body: { type: 'ping', n: 404 } },
      { id: 'threw', body: { type: 'ping', n: 500 } },
      { id: 'waits', body: { type: 'ping', n: 429 } },
      { id: 'busy', body: { type: 'ping', n: 503 } },
      { id: 'fine', body: { type: 'ping', n: 1 } },
    ]);
    expect(result).toEqual({ failedIds: ['threw', 'waits', 'busy'], retryAfterSeconds: { waits: 120 } });
    expect(seen).toEqual([1]);
    // Malformed bodies and thrown errors are logged; an unknown type and a 404 are not news.
    expect(error.mock.calls.map((call) => String(call[0]))).toEqual([
      'test queue: dropping message malformed (MALFORMED)',
      'test queue: dropping message untyped (MALFORMED)',
      'test queue: retrying message threw (FAILED)',
    ]);
    expect(warn.mock.calls.map((call) => String(call[0]))).toEqual(['test queue: message waits: channel 7: rate limited', 'test queue: message busy: channel 8: unavailable']);
    error.mockRestore();
    warn.mockRestore();
  });
});

describe('consumeMessages: order', () => {
  it('handles messages about different checks at once, and those about one check or incident in the batch order', async () => {
    const Step = z.object({ type: z.literal('step'), checkId: z.number().optional(), incidentId: z.number().optional(), n: z.number() });
    const events: string[] = [];
    let running = 0;
    let most = 0;
    // Each message holds its lane until every message has started or its own lane's next is waiting on it.
    const gates = new Map<number, () => void>();
    const steps: HandlerTable = {
      step: handler(Step, async ({ n }) => {
        running++;
        most = Math.max(most, running);
        events.push(`start ${n}`);
        await new Promise<void>((resolve) => {
          gates.set(n, resolve);
          setImmediate(resolve);
        });
        events.push(`end ${n}`);
        running--;
      }),
    };
    await consumeMessages('test', steps, [
      { id: 'a1', body: { type: 'step', checkId: 1, n: 1 } },
      { id: 'b1', body: { type: 'step', checkId: 2, n: 2 } },
      { id: 'a2', body: { type: 'step', checkId: 1, n: 3 } },
      { id: 'i1', body: { type: 'step', checkId: 3, incidentId: 9, n: 4 } },
      { id: 'i2', body: { type: 'step', checkId: 4, incidentId: 9, n: 5 } },
    ]);
    // Three lanes (check 1, check 2, incident 9) ran side by side...
    expect(most).toBe(3);
    // ...and within a lane each message ended before the next began.
    expect(events.indexOf('end 1')).toBeLessThan(events.indexOf('start 3'));
    expect(events.indexOf('end 4')).toBeLessThan(events.indexOf('start 5'));
    expect(events.filter((e) => e.startsWith('end'))).toHaveLength(5);
  });
});
