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
