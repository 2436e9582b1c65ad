import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { createTestContext, type TestContext } from '../../../test/harness.js';
import { LONG_SESSIONS, freshRateWindow } from '../../../test/support/checks.js';
import { changeStatus, checkComponent, createPage, expectStatus, type User } from '../../../test/support/statuspages.js';
import { OUTBOX_GRACE_MS, relayPendingOutboxes } from '../../outbox/index.js';
import { LOCAL_STREAM_PATH } from '../../streams/local.js';
import { bounded, serveWithStreams, streamsSettled } from '../../../test/support/streams.js';
import { refreshSnapshot } from '../store/snapshot.js';
import { canSubscribe } from '../../signals/streamEvents.js';
import type { BroadcastEvent } from '../../ports/index.js';
import { STATUS_KEEP_ALIVE_MS } from '../events.js';
import { STREAM_LIMITS } from '../../http/streamLimits.js';

/**
 * The public status stream over real sockets: SSE at `/api/public/status/:slug/events` and the
 * WebSocket `?stream=status` on the embedded server. Each change is emitted once through the
 * snapshot's outbox, however many rebuilds and sweeps follow it.
 */
let t: TestContext;
let served: Awaited<ReturnType<typeof serveWithStreams>>;
let origin: string;
let user: User;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  served = await serveWithStreams(t);
  origin = `127.0.0.1:${served.port}`;
  user = await t.signup('sse-owner');
});
afterAll(() => served.close());
beforeEach(() => freshRateWindow(t));
afterEach(() => vi.useRealTimers());

type Event = { event: string; data: Record<string, unknown> };

const openStreamsSettle = (n: number): Promise<void> => streamsSettled(t, n);

/** A real SSE client: parses `event:`/`data:` frames as they arrive. */
async function openSse(slug: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const response = await fetch(`http://${origin}/api/public/status/${slug}/events`, { headers, signal: abort.signal });
  const events: Event[] = [];
  const comments: string[] = [];
  let waiter: (() => void) | undefined;
  if (response.ok && response.body) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += value;
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            if (frame.startsWith(':')) comments.push(frame.slice(1).trim());
            else {
              const name = /^event: (.*)$/m.exec(frame)?.[1] ?? 'message';
              const data = /^data: (.*)$/m.exec(frame)?.[1] ?? '{}';
              events.push({ event: name, data: JSON.parse(data) as Record<string, unknown> });
            }
            waiter?.();
          }
        }
      } catch {
        // aborted
      }
    })();
  }
  const until = (ok: () => boolean, what: string) =>
    bounded(
      new Promise<void>((resolve) => {
        const check = () => (ok() ? resolve() : (waiter = check));
        check();
      }),
      2000,
      what,
    );
  return { response, events, comments, until, close: () => abort.abort() };
}

async function openWs(query: Record<string, string>) {
  const ws = new WebSocket(`ws://${origin}${LOCAL_STREAM_PATH}?${new URLSearchParams(query)}`);
  const events: Event[] = [];
  ws.on('message', (raw) => events.push(JSON.parse(String(raw)) as Event));
  const status = await bounded(
    new Promise<number>((resolve, reject) => {
      ws.once('open', () => resolve(101));
      ws.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      ws.once('error', reject);
    }),
    2000,
    'no websocket answer',
  );
  return { ws, status, events };
}

describe('public status events', () => {
  it('an announcement posted and a component flipped reach a connected SSE and WebSocket client once', async () => {
    const page = await createPage(t, user);
    const { check, component } = await checkComponent(t, user, page.id, { name: 'Checkout' });
    await changeStatus(t, check, user, 'NEW', 'OK');
    const sse = await openSse(page.slug);
    expect(sse.response.status).toBe(200);
    expect(sse.response.headers.get('content-type')).toContain('text/event-stream');
    await sse.until(() => sse.comments.includes('connected'), 'no connected comment');
    const ws = await openWs({ stream: 'status', slug: page.slug });
    expect(ws.status).toBe(101);

    const created = expectStatus(
      await t.request<{ id: number; publicId: string }>('POST', `/status-pages/${page.id}/announcements`, {
        token: user.token,
        body: { title: 'Slow <b>payments</b>', body: 'Investigating', impact: 'NONE', componentIds: [component.id] },
      }),
      201,
    );
    await changeStatus(t, check, user, 'OK', 'DOWN');
    // Rebuilds and sweeps that follow find nothing new to say.
    await refreshSnapshot(t.deps, page.id);
    t.clock.advance(OUTBOX_GRACE_MS + 1);
    await relayPendingOutboxes(t.deps, t.clock.now());
    // A last change marks the end: everything before it has been delivered by then.
    expectStatus(await t.request('PATCH', `/status-pages/${page.id}/announcements/${created.id}`, { token: user.token, body: { status: 'RESOLVED' } }), 200);
    await sse.until(() => sse.events.length >= 3, 'SSE events missing');
    await bounded(
      new Promise<void>((resolve) => {
        const poll = () => (ws.events.length >= 3 ? resolve() : setImmediate(poll));
        poll();
      }),
      2000,
      'WebSocket events missing',
    );

    const expected = [
      { event: 'announcement.created', data: expect.objectContaining({ id: created.publicId, title: 'Slow <b>payments</b>', status: 'INVESTIGATING' }) },
      { event: 'component.status_changed', data: { componentId: component.id, status: 'MAJOR_OUTAGE', previous: 'OPERATIONAL' } },
      { event: 'announcement.updated', data: expect.objectContaining({ id: created.publicId, status: 'RESOLVED' }) },
    ];
    expect(sse.events).toEqual(expected);
    expect(ws.events).toEqual(expected);
    // Nothing internal travels: no check, workspace or internal ids.
    expect(JSON.stringify(sse.events)).not.toContain(check.name);
    sse.close();
    ws.ws.close();
  });

  it('a PRIVATE page refuses anonymous listeners (404) and streams to a member; a password page needs a session', async () => {
    const hidden = await createPage(t, user, { visibility: 'PRIVATE' });
    const anonymous = await openSse(hidden.slug);
    expect(anonymous.response.status).toBe(404);
    expect(await anonymous.response.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    expect((await openWs({ stream: 'status', slug: hidden.slug })).status).toBe(404);
    const member = await openSse(hidden.slug, { authorization: `Bearer ${user.token}` });
    expect(member.response.status).toBe(200);
    member.close();
    const memberWs = await openWs({ stream: 'status', slug: hidden.slug, session: user.token });
    expect(memberWs.status).toBe(101);
    memberWs.ws.close();

    const locked = await createPage(t, user, { visibility: 'PASSWORD_PROTECTED', password: 'correct horse battery' });
    expect((await openSse(locked.slug)).response.status).toBe(401);
    expect((await openWs({ stream: 'status', slug: locked.slug })).status).toBe(401);
    const login = expectStatus(await t.request<{ token: string }>('POST', `/public/status/${locked.slug}/auth`, { body: { password: 'correct horse battery' } }), 200);
    const withSession = await openSse(locked.slug, { authorization: `Bearer ${login.token}` });
    expect(withSession.response.status).toBe(200);
    withSession.close();
    const wsSession = await openWs({ stream: 'status', slug: locked.slug, session: login.token });
    expect(wsSession.status).toBe(101);
    wsSession.ws.close();
    expect((await openSse('no-such-page-here')).response.status).toBe(404);
  });

  it('allows 30 new connections per 60 s per address and 20 open at once, SSE and WebSocket counted together, exactly under concurrency', async () => {
    const page = await createPage(t, user);
    await openStreamsSettle(0);
    const [sse, ws] = await Promise.all([
      Promise.all(Array.from({ length: 25 }, () => openSse(page.slug))),
      Promise.all(Array.from({ length: 10 }, () => openWs({ stream: 'status', slug: page.slug }))),
    ]);
    const statuses = [...sse.map((c) => c.response.status), ...ws.map((c) => c.status)];
    // 30 pass the rate limit, 20 of them the open-connection cap; the other 15 are 429.
    expect(statuses.filter((s) => s === 200 || s === 101)).toHaveLength(STREAM_LIMITS.perAddress);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    const refused = sse.find((c) => c.response.status === 429);
    if (refused) expect(await refused.response.json()).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED' });
    for (const c of sse) c.close();
    for (const c of ws) c.ws.close();
    await openStreamsSettle(0);
  });

  it('sends a keep-alive comment every 15 seconds', async () => {
    const page = await createPage(t, user);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const res = await t.app.request(`http://localhost/api/public/status/${page.slug}/events`, {}, { incoming: { socket: { remoteAddress: '192.0.2.90' } } });
    expect(res.status).toBe(200);
    const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (!reader) throw new Error('no SSE body');
    expect((await reader.read()).value).toBe(': connected\n\n');
    vi.advanceTimersByTime(STATUS_KEEP_ALIVE_MS);
    expect((await bounded(reader.read(), 1000, 'no keep-alive')).value).toBe(': keep-alive\n\n');
    await reader.cancel();
  });

  it('racing rebuilds emit a change once, and a change whose relay failed is emitted by the sweep, once', async () => {
    const page = await createPage(t, user);
    const { check } = await checkComponent(t, user, page.id);
    await changeStatus(t, check, user, 'NEW', 'OK');
    const hub = t.deps.broadcaster;
    if (!canSubscribe(hub)) throw new Error('no local hub');
    const heard: BroadcastEvent[] = [];
    const stop = hub.subscribe((event) => {
      if (event.channel === `statuspage:${page.id}`) heard.push(event);
    });
    const ref = (await t.deps.store.entities.checkRef.get({ checkId: check.id }).go()).data;
    await t.deps.store.entities.check
      .patch({ token: ref?.token ?? '' })
      .set({ status: 'DOWN' })
      .go();
    await Promise.all([refreshSnapshot(t.deps, page.id), refreshSnapshot(t.deps, page.id), refreshSnapshot(t.deps, page.id)]);
    expect(heard.map((e) => [e.type, (e.data as { status: string }).status])).toEqual([['component.status_changed', 'MAJOR_OUTAGE']]);

    // The relay right after the write fails (the stream hub is down): the change stays owed.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const publish = vi.spyOn(hub, 'publish').mockRejectedValueOnce(new Error('hub down'));
    await t.deps.store.entities.check
      .patch({ token: ref?.token ?? '' })
      .set({ status: 'OK' })
      .go();
    await refreshSnapshot(t.deps, page.id);
    publish.mockRestore();
    logged.mockRestore();
    expect(heard).toHaveLength(1);
    t.clock.advance(OUTBOX_GRACE_MS + 1);
    await relayPendingOutboxes(t.deps, t.clock.now());
    await relayPendingOutboxes(t.deps, t.clock.now());
    expect(heard.map((e) => (e.data as { status: string }).status)).toEqual(['MAJOR_OUTAGE', 'OPERATIONAL']);
    stop();
  });
});
