import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { KEEP_ALIVE_MS } from './stream.js';
import { createJob, type Job } from '../../test/support/signals.js';

let t: TestContext;
let user: Awaited<ReturnType<TestContext['signup']>>;
let mine: Job;
let second: Job;
let theirs: Job;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('watcher');
  const key = await t.apiKey(user);
  mine = await createJob(t, user, key);
  second = await createJob(t, user, key);
  const other = await t.signup('neighbour');
  theirs = await createJob(t, other, await t.apiKey(other));
});
afterEach(() => {
  vi.useRealTimers();
});

/** Opens the stream through the app (no server) and reads it chunk by chunk. */
async function connect(query = '', token = user.token) {
  const res = await t.app.request(
    `http://localhost/api/signals/sse${query}`,
    { headers: { authorization: `Bearer ${token}` } },
    { incoming: { socket: { remoteAddress: '127.0.0.1' } } },
  );
  if (res.status !== 200 || !res.body) return { res, next: async () => '', close: async () => undefined };
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  /** The next complete SSE block (event or comment). */
  const next = async (): Promise<string> => {
    while (!buffered.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended');
      buffered += decoder.decode(value, { stream: true });
    }
    const end = buffered.indexOf('\n\n');
    const block = buffered.slice(0, end);
    buffered = buffered.slice(end + 2);
    return block;
  };
  return { res, next, close: () => reader.cancel() };
}

const parse = (block: string) => {
  const event = /^event: (.*)$/m.exec(block)?.[1];
  const data = /^data: (.*)$/m.exec(block)?.[1];
  return { event, data: data ? (JSON.parse(data) as { type: string; data: { checkId: number; status?: string; signal?: { type: string } } }) : undefined };
};

describe('signal stream (SSE)', () => {
  it('streams signal and check events of the user’s checks only, as {type, data}', async () => {
    const stream = await connect();
    expect(stream.res.headers.get('content-type')).toContain('text/event-stream');
    expect(await stream.next()).toBe(': connected');
    await t.request('GET', `/signals/ping/${theirs.token}`);
    await t.request('GET', `/signals/ping/${mine.token}`);
    const signal = parse(await stream.next());
    expect(signal.event).toBe('signal');
    expect(signal.data).toMatchObject({ type: 'signal', data: { checkId: mine.id, signal: { type: 'SUCCESS' } } });
    expect(parse(await stream.next()).data).toMatchObject({ type: 'check', data: { checkId: mine.id, status: 'OK' } });
    await stream.close();
    expect(t.deps.broadcaster.size).toBe(0);
  });

  it('filters to one check with ?token=, and 404s a token of another workspace', async () => {
    const stream = await connect(`?token=${second.token}`);
    expect(await stream.next()).toBe(': connected');
    t.clock.advanceSeconds(2);
    await t.request('GET', `/signals/ping/${mine.token}`);
    await t.request('GET', `/signals/ping/${second.token}/start`);
    expect(parse(await stream.next()).data).toMatchObject({ type: 'signal', data: { checkId: second.id, signal: { type: 'START' } } });
    await stream.close();
    expectError(await t.request('GET', `/signals/sse?token=${theirs.token}`, { token: user.token }), 404, 'CHECK_NOT_FOUND');
    expectError(await t.request('GET', '/signals/sse'), 401);
  });

  it('sends a keep-alive comment every 15 seconds', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const stream = await connect();
    expect(await stream.next()).toBe(': connected');
    vi.advanceTimersByTime(KEEP_ALIVE_MS);
    expect(await stream.next()).toBe(': keep-alive');
    await stream.close();
  });

  it('allows 30 new connections per 60 s per user', async () => {
    const viewer = await t.signup('busy-viewer');
    for (let i = 0; i < 30; i++) {
      const stream = await connect('', viewer.token);
      expect(stream.res.status).toBe(200);
      await stream.close();
    }
    const refused = await t.request('GET', '/signals/sse', { token: viewer.token });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.get('retry-after')).not.toBeNull();
  });
});
