import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { LONG_SESSIONS, freshRateWindow } from '../../test/support/checks.js';
import { createPage, expectStatus, type User } from '../../test/support/statuspages.js';
import { KEEP_ALIVE_MS } from '../signals/stream.js';
import { STREAM_LIMITS } from '../http/streamLimits.js';
import { bounded, serveWithStreams, streamsSettled } from '../../test/support/streams.js';
import { LOCAL_STREAM_PATH } from './local.js';

/**
 * The bounds of open streams over real sockets on the embedded server: the
 * per-address and per-user caps (SSE and WebSocket counted together), the idle bound of anonymous
 * streams, the 64 KiB WebSocket payload limit, and the streams that end when a session ends or a
 * page's access becomes stricter.
 */
let t: TestContext;
let served: Awaited<ReturnType<typeof serveWithStreams>>;
let origin: string;
let owner: User;

beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  served = await serveWithStreams(t);
  origin = `127.0.0.1:${served.port}`;
  owner = await t.signup('bounds-owner');
});
afterAll(() => served.close());
beforeEach(async () => {
  freshRateWindow(t);
  await settled(0);
});
afterEach(() => vi.useRealTimers());

const settled = (n: number): Promise<void> => streamsSettled(t, n);

type Ws = { ws: WebSocket; next(): Promise<{ event: string }>; closed(within?: number): Promise<number> };
type WsRefusal = { status: number; retryAfter: string | undefined; body: Record<string, unknown> };

/** A real WebSocket client: open, or the HTTP answer that refused the upgrade. */
function openWs(query: Record<string, string>): Promise<Ws | WsRefusal> {
  const ws = new WebSocket(`ws://${origin}${LOCAL_STREAM_PATH}?${new URLSearchParams(query)}`);
  const queue: { event: string }[] = [];
  const waiting: ((m: { event: string }) => void)[] = [];
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as { event: string };
    const waiter = waiting.shift();
    if (waiter) waiter(message);
    else queue.push(message);
  });
  const closeCode = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    ws.once('open', () =>
      resolve({
        ws,
        next: () => {
          const ready = queue.shift();
          return ready ? Promise.resolve(ready) : bounded(new Promise((r) => waiting.push(r)), 1000, 'no message');
        },
        closed: (within = 1000) => bounded(closeCode, within, 'not closed'),
      }),
    );
    ws.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => {
        const retryAfter = response.headers['retry-after'];
        resolve({
          status: response.statusCode ?? 0,
          retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
          body: JSON.parse(text || '{}') as Record<string, unknown>,
        });
      });
    });
    ws.once('error', (err) => (err.message.startsWith('Unexpected server response') ? undefined : reject(err)));
  });
}

async function mustOpen(query: Record<string, string>): Promise<Ws> {
  const opened = await openWs(query);
  if (!('ws' in opened)) throw new Error(`refused: ${opened.status} ${JSON.stringify(opened.body)}`);
  return opened;
}

/** A real SSE client (fetch); `ended` resolves when the server ends the stream. */
async function openSse(path: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const response = await fetch(`http://${origin}/api${path}`, { headers, signal: abort.signal });
  let ended: Promise<boolean> = Promise.resolve(false);
  if (response.ok && response.body) {
    const reader = response.body.getReader();
    ended = (async () => {
      try {
        for (;;) if ((await reader.read()).done) return true;
      } catch {
        return false; // aborted by the test
      }
    })();
  }
  return { response, ended, close: () => abort.abort() };
}

const status = (slug: string, extra: Record<string, string> = {}) => ({ stream: 'status', slug, ...extra });
const signals = (token: string) => ({ stream: 'signals', access_token: token });

describe('the WebSocket payload limit', () => {
  it('closes a connection that sends a 65 KiB frame with 1009, and answers a 64 KiB one', async () => {
    const page = await createPage(t, owner);
    const client = await mustOpen(status(page.slug));
    client.ws.send('x'.repeat(STREAM_LIMITS.maxPayloadBytes));
    expect(await client.next()).toMatchObject({ event: 'error' });
    client.ws.send('x'.repeat(65 * 1024));
    expect(await client.closed()).toBe(1009);
  });
});

describe('open-connection caps', () => {
  it(`holds ${STREAM_LIMITS.perAddress} open streams per address, SSE and WebSocket together; the next is a 429 with Retry-After`, async () => {
    const page = await createPage(t, owner);
    const ws = await Promise.all(Array.from({ length: 10 }, () => mustOpen(status(page.slug))));
    const sse = await Promise.all(Array.from({ length: 10 }, () => openSse(`/public/status/${page.slug}/events`)));
    expect(sse.map((s) => s.response.status)).toEqual(Array.from({ length: 10 }, () => 200));

    const refusedWs = await openWs(status(page.slug));
    expect(refusedWs).toMatchObject({
      status: 429,
      retryAfter: String(STREAM_LIMITS.retryAfterSeconds),
      body: { statusCode: 429, code: 'RATE_LIMITED', error: expect.any(String) },
    });
    const refusedSse = await openSse(`/public/status/${page.slug}/events`);
    expect(refusedSse.response.status).toBe(429);
    expect(refusedSse.response.headers.get('retry-after')).toBe(String(STREAM_LIMITS.retryAfterSeconds));
    expect(await refusedSse.response.json()).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED', message: expect.stringContaining('address') });

    // Closing one frees its place.
    ws[0]?.ws.close();
    await settled(STREAM_LIMITS.perAddress - 1);
    const again = await mustOpen(status(page.slug));
    again.ws.close();
    for (const c of ws) c.ws.close();
    for (const c of sse) c.close();
  });

  it(`holds ${STREAM_LIMITS.perUser} open signal streams per user, SSE and WebSocket together`, async () => {
    const viewer = await t.signup('bounds-viewer');
    const ws = await Promise.all(Array.from({ length: 5 }, () => mustOpen(signals(viewer.token))));
    const sse = await Promise.all(Array.from({ length: 5 }, () => openSse('/signals/sse', { authorization: `Bearer ${viewer.token}` })));
    expect(sse.map((s) => s.response.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await openWs(signals(viewer.token))).toMatchObject({
      status: 429,
      retryAfter: String(STREAM_LIMITS.retryAfterSeconds),
      body: { message: expect.stringContaining('user') },
    });
    const refused = await openSse('/signals/sse', { authorization: `Bearer ${viewer.token}` });
    expect(refused.response.status).toBe(429);
    expect(refused.response.headers.get('retry-after')).toBe(String(STREAM_LIMITS.retryAfterSeconds));
    // Another user is not counted with them.
    const other = await t.signup('bounds-other');
    const theirs = await mustOpen(signals(other.token));
    theirs.ws.close();
    for (const c of ws) c.ws.close();
    for (const c of sse) c.close();
  });
});

describe('idle anonymous streams', () => {
  it(`end after ${STREAM_LIMITS.anonymousIdleSeconds / 60} minutes without a client message: a silent WebSocket (1001) and an SSE stream; a pinging one stays`, async () => {
    const page = await createPage(t, owner);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const silent = await mustOpen(status(page.slug));
    const talking = await mustOpen(status(page.slug));
    const sse = await openSse(`/public/status/${page.slug}/events`);
    expect(sse.response.status).toBe(200);
    t.clock.advanceSeconds(STREAM_LIMITS.anonymousIdleSeconds / 2);
    talking.ws.send(JSON.stringify({ action: 'ping' }));
    expect(await talking.next()).toEqual({ event: 'pong' });
    t.clock.advanceSeconds(STREAM_LIMITS.anonymousIdleSeconds / 2);
    vi.advanceTimersByTime(KEEP_ALIVE_MS);
    expect(await silent.closed()).toBe(1001);
    expect(await bounded(sse.ended, 1000, 'SSE not ended')).toBe(true);
    talking.ws.send(JSON.stringify({ action: 'ping' }));
    expect(await talking.next()).toEqual({ event: 'pong' });
    talking.ws.close();
  });
});

describe('streams end with the access they were opened under', () => {
  it('logout {refresh_token} closes that session’s streams, not the other session’s; its token opens no PRIVATE page or its stream', async () => {
    const carol = await t.signup('bounds-carol');
    const second = expectStatus(
      await t.request<{ access_token: string; refresh_token: string }>('POST', '/oauth/token', {
        body: { grant_type: 'password', username: carol.email, password: carol.password },
      }),
      200,
    );
    expect((await t.request('POST', `/workspaces/${owner.workspaceId}/members`, { token: owner.token, body: { email: carol.email, role: 'VIEWER' } })).status).toBe(201);
    const hidden = await createPage(t, owner, { visibility: 'PRIVATE' });
    expect((await t.request('GET', `/public/status/${hidden.slug}`, { token: carol.token })).status).toBe(200);

    const wsA = await mustOpen(signals(carol.token));
    const sseA = await openSse('/signals/sse', { authorization: `Bearer ${carol.token}` });
    const wsB = await mustOpen(signals(second.access_token));
    // The PRIVATE page's own streams, opened as a member with the same session's token.
    const pageWsA = await mustOpen(status(hidden.slug, { session: carol.token }));
    const pageSseA = await openSse(`/public/status/${hidden.slug}/events`, { authorization: `Bearer ${carol.token}` });
    expect(pageSseA.response.status).toBe(200);
    expect((await t.request('POST', '/auth/logout', { token: carol.token, body: { refresh_token: carol.refreshToken } })).status).toBe(204);
    expect(await wsA.closed()).toBe(4401);
    expect(await bounded(sseA.ended, 1000, 'SSE not ended')).toBe(true);
    expect(await pageWsA.closed()).toBe(4401);
    expect(await bounded(pageSseA.ended, 1000, 'page SSE not ended')).toBe(true);
    wsB.ws.send(JSON.stringify({ action: 'ping' }));
    expect(await wsB.next()).toEqual({ event: 'pong' });

    // The logged-out token, though not expired, opens neither the PRIVATE page nor its streams.
    expect((await t.request('GET', `/public/status/${hidden.slug}`, { token: carol.token })).status).toBe(404);
    expect(await openWs(status(hidden.slug, { session: carol.token }))).toMatchObject({ status: 404 });
    expect((await openSse(`/public/status/${hidden.slug}/events`, { authorization: `Bearer ${carol.token}` })).response.status).toBe(404);
    expect(await openWs(signals(carol.token))).toMatchObject({ status: 401 });
    // The other session still does.
    expect((await t.request('GET', `/public/status/${hidden.slug}`, { token: second.access_token })).status).toBe(200);
    wsB.ws.close();
  });

  const narrowings: [string, Record<string, unknown> | 'DELETE'][] = [
    ['turned PRIVATE', { visibility: 'PRIVATE' }],
    ['disabled', { enabled: false }],
    ['given a password', { visibility: 'PASSWORD_PROTECTED', password: 'a new page password 1' }],
    ['deleted', 'DELETE'],
  ];
  for (const [what, change] of narrowings) {
    it(`a page ${what} closes its open streams, SSE and WebSocket; a reconnect is refused`, async () => {
      const page = await createPage(t, owner);
      const ws = await mustOpen(status(page.slug));
      const sse = await openSse(`/public/status/${page.slug}/events`);
      expect(sse.response.status).toBe(200);
      const other = await createPage(t, owner);
      const bystander = await mustOpen(status(other.slug));
      const answer =
        change === 'DELETE'
          ? await t.request('DELETE', `/status-pages/${page.id}`, { token: owner.token })
          : await t.request('PATCH', `/status-pages/${page.id}`, { token: owner.token, body: change });
      expect(answer.status).toBeLessThan(300);
      expect(await ws.closed()).toBe(4401);
      expect(await bounded(sse.ended, 1000, 'SSE not ended')).toBe(true);
      expect([401, 404]).toContain(((await openWs(status(page.slug))) as WsRefusal).status);
      bystander.ws.send(JSON.stringify({ action: 'ping' }));
      expect(await bystander.next()).toEqual({ event: 'pong' });
      bystander.ws.close();
    });
  }

  it('a page whose password changes closes the streams opened with the old one', async () => {
    const page = await createPage(t, owner, { visibility: 'PASSWORD_PROTECTED', password: 'first page password 1' });
    const login = expectStatus(await t.request<{ token: string }>('POST', `/public/status/${page.slug}/auth`, { body: { password: 'first page password 1' } }), 200);
    const ws = await mustOpen(status(page.slug, { session: login.token }));
    expect((await t.request('PATCH', `/status-pages/${page.id}`, { token: owner.token, body: { password: 'second page password 2' } })).status).toBe(200);
    expect(await ws.closed()).toBe(4401);
    expect(await openWs(status(page.slug, { session: login.token }))).toMatchObject({ status: 401 });
  });
});
