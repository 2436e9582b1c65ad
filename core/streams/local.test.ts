import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { KEEP_ALIVE_MS } from '../signals/stream.js';
import { createJob, type Job } from '../../test/support/signals.js';
import { createChannel } from '../../test/support/alerting.js';
import { bounded, openStream, serveWithStreams, streamsSettled, type StreamClient } from '../../test/support/streams.js';
import { LOCAL_STREAM_PATH } from './local.js';
import type { User } from '../../test/support/users.js';

type Message = {
  event: string;
  data?: { checkId?: number | null; workspaceId?: number; signal?: { type: string }; status?: string; incidentId?: number; change?: string; state?: string };
};

let t: TestContext;
let served: Awaited<ReturnType<typeof serveWithStreams>>;
let base: string;
let alice: User;
let bob: User;
let aliceJob: Job;
let aliceOther: Job;
let bobJob: Job;

beforeAll(async () => {
  t = await createTestContext();
  served = await serveWithStreams(t);
  base = `ws://127.0.0.1:${served.port}${LOCAL_STREAM_PATH}`;
  alice = await t.signup('lws-alice');
  bob = await t.signup('lws-bob');
  aliceJob = await createJob(t, alice, await t.apiKey(alice));
  aliceOther = await createJob(t, alice, await t.apiKey(alice));
  bobJob = await createJob(t, bob, await t.apiKey(bob));
});
afterAll(() => served.close());
afterEach(() => {
  vi.useRealTimers();
});

type Client = StreamClient<Message>;
const open = (query: Record<string, string>): Promise<Client> => openStream<Message>(`${base}?${new URLSearchParams(query)}`);

const settled = (n: number): Promise<void> => streamsSettled(t, n);

async function ping(job: Job) {
  t.clock.advanceSeconds(2); // past the 1-second dedup window
  expect((await t.request('GET', `/signals/ping/${job.token}`)).status).toBe(200);
}

const signals = (user: User, extra: Record<string, string> = {}) => ({ stream: 'signals', access_token: user.token, ...extra });

describe('ws://localhost:3000/api/ws', () => {
  it('delivers a ping to a subscribed client within 1 s as {event, data}', async () => {
    const client = await open(signals(alice));
    const started = performance.now();
    await ping(aliceJob);
    const signal = await client.next(1000);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(signal).toMatchObject({ event: 'signal', data: { checkId: aliceJob.id, workspaceId: alice.workspaceId, signal: { type: 'SUCCESS' } } });
    expect(await client.next()).toMatchObject({ event: 'check', data: { checkId: aliceJob.id, status: 'OK' } });
    client.ws.close();
  });

  it('holds the check filter: a client on one check hears only that check', async () => {
    const client = await open(signals(alice, { token: aliceOther.token }));
    await ping(aliceJob);
    await ping(aliceOther);
    // Events arrive in publish order, so the first one this client hears shows what it skipped.
    expect((await client.next()).data?.checkId).toBe(aliceOther.id);
    expect((await client.next()).data?.checkId).toBe(aliceOther.id);
    client.ws.close();
  });

  it('lets another workspace’s client hear nothing', async () => {
    const theirs = await open(signals(bob));
    await ping(aliceJob);
    await ping(bobJob);
    expect((await theirs.next()).data).toMatchObject({ checkId: bobJob.id, workspaceId: bob.workspaceId });
    theirs.ws.close();
  });

  it('refuses a bad token (401), a foreign check (404), a bad query (400) and other paths (404)', async () => {
    await expect(open(signals(alice, { access_token: 'bad-token' }))).rejects.toMatchObject({ status: 401 });
    await expect(open({ stream: 'signals' })).rejects.toMatchObject({ status: 401 });
    await expect(open(signals(alice, { token: bobJob.token }))).rejects.toMatchObject({ status: 404 });
    await expect(open({ access_token: alice.token })).rejects.toMatchObject({ status: 400 });
    await expect(open({ stream: 'status', slug: 'acme' })).rejects.toMatchObject({ status: 404 });
    const elsewhere = new WebSocket(base.replace(LOCAL_STREAM_PATH, '/api/other'));
    const status = await bounded(new Promise<number>((resolve) => elsewhere.once('unexpected-response', (_q, r) => resolve(r.statusCode ?? 0))), 1000, 'no answer');
    expect(status).toBe(404);
    elsewhere.on('error', () => undefined);
  });

  it('answers {"action":"ping"} with {"event":"pong"}', async () => {
    const client = await open(signals(alice));
    client.ws.send(JSON.stringify({ action: 'ping' }));
    expect(await client.next()).toEqual({ event: 'pong' });
    client.ws.send('nonsense');
    expect(await client.next()).toMatchObject({ event: 'error', data: { statusCode: 400 } });
    client.ws.close();
  });

  it('closes a user’s streams, WebSocket and SSE, on logout everywhere', async () => {
    const carol = await t.signup('lws-carol');
    const client = await open(signals(carol));
    const sse = await t.app.request(
      'http://localhost/api/signals/sse',
      { headers: { authorization: `Bearer ${carol.token}` } },
      { incoming: { socket: { remoteAddress: '127.0.0.1' } } },
    );
    const reader = sse.body?.getReader();
    if (!reader) throw new Error('no SSE body');
    await reader.read(); // ': connected'
    expect((await t.request('POST', '/auth/logout', { token: carol.token, body: { everywhere: true } })).status).toBe(204);
    expect(await client.closed()).toBe(4401);
    expect((await bounded(reader.read(), 1000, 'SSE not ended')).done).toBe(true);
  });

  it('closes a user’s streams on a password change', async () => {
    const erin = await t.signup('lws-erin');
    const client = await open(signals(erin));
    const changed = await t.request('POST', '/auth/password', { token: erin.token, body: { currentPassword: erin.password, newPassword: 'a brand new passphrase 9' } });
    expect(changed.status).toBe(200);
    expect(await client.closed()).toBe(4401);
    await expect(open(signals(erin))).rejects.toMatchObject({ status: 401 });
  });

  it('closes a removed member’s stream', async () => {
    const dave = await t.signup('lws-dave');
    expect((await t.request('POST', `/workspaces/${alice.workspaceId}/members`, { token: alice.token, body: { email: dave.email, role: 'VIEWER' } })).status).toBe(201);
    const client = await open(signals(dave));
    expect((await t.request('DELETE', `/workspaces/${alice.workspaceId}/members/${dave.userId}`, { token: alice.token })).status).toBe(204);
    expect(await client.closed()).toBe(4401);
  });

  it('re-checks access on each keep-alive, closing a stream whose membership went away unannounced', async () => {
    const erin = await t.signup('lws-erin');
    expect((await t.request('POST', `/workspaces/${alice.workspaceId}/members`, { token: alice.token, body: { email: erin.email, role: 'VIEWER' } })).status).toBe(201);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const client = await open(signals(erin));
    // Straight to the store: no closeUserStreams, as if the revocation came from elsewhere.
    await t.deps.store.entities.membership.delete({ workspaceId: alice.workspaceId, userId: erin.userId }).go();
    vi.advanceTimersByTime(KEEP_ALIVE_MS);
    expect(await client.closed()).toBe(4401);
  });

  it('allows 30 connections per 60 s per user (closed ones count too)', async () => {
    const busy = await t.signup('lws-busy');
    for (let i = 0; i < 30; i++) {
      const client = await open(signals(busy));
      client.ws.close();
      await client.closed();
      await settled(0);
    }
    await expect(open(signals(busy))).rejects.toMatchObject({ status: 429 });
  });
});

describe('incident events on the signal stream', () => {
  const declare = async (body: Record<string, unknown>) => {
    const res = await t.request<{ id: number }>('POST', '/v1/incidents', { token: await t.apiKey(alice), body });
    expect(res.status).toBe(201);
    return res.body.id;
  };

  it('announces an incident opened, acknowledged and noted to its workspace, ids and enums only', async () => {
    const client = await open(signals(alice));
    const incidentId = await declare({ title: 'Payments degraded', severity: 'P2' });
    const opened = { incidentId, workspaceId: alice.workspaceId, checkId: null, state: 'ACTIVE', severity: 'P2' };
    expect(await client.next()).toEqual({ event: 'incident', data: { ...opened, change: 'opened' } });

    expect((await t.request('POST', `/incidents/${incidentId}/acknowledge`, { token: alice.token })).status).toBe(200);
    expect(await client.next()).toEqual({ event: 'incident', data: { ...opened, change: 'updated' } });

    const note = await t.request<{ id: number }>('POST', `/incident-notes/${incidentId}`, { token: alice.token, body: { body: 'On it' } });
    expect(note.status).toBe(201);
    expect(await client.next()).toEqual({ event: 'incident', data: { ...opened, change: 'timeline' } });
    expect((await t.request('PATCH', `/incident-notes/${incidentId}/${note.body.id}`, { token: alice.token, body: { body: 'Fixed' } })).status).toBe(200);
    expect(await client.next()).toMatchObject({ event: 'incident', data: { incidentId, change: 'timeline' } });
    expect((await t.request('DELETE', `/incident-notes/${incidentId}/${note.body.id}`, { token: alice.token })).status).toBe(204);
    expect(await client.next()).toMatchObject({ event: 'incident', data: { incidentId, change: 'timeline' } });
    client.ws.close();
  });

  it('announces who was told (ALERT_SENT, recorded by the alerts consumer) as a timeline change', async () => {
    const frank = await t.signup('lws-frank');
    await createChannel(t, frank, { type: 'EMAIL', config: { email: 'oncall@example.com' } });
    const client = await open(signals(frank));
    const declared = await t.request<{ id: number }>('POST', '/v1/incidents', { token: await t.apiKey(frank), body: { title: 'Queue stuck' } });
    expect(declared.status).toBe(201);
    expect(await client.next()).toMatchObject({ event: 'incident', data: { incidentId: declared.body.id, change: 'opened' } });
    await t.deps.queue.drain();
    expect(await client.next()).toMatchObject({ event: 'incident', data: { incidentId: declared.body.id, workspaceId: frank.workspaceId, change: 'timeline' } });
    const timeline = await t.request<{ type: string }[]>('GET', `/incident-events/${declared.body.id}`, { token: frank.token });
    expect(timeline.body.map((e) => e.type)).toContain('ALERT_SENT');
    client.ws.close();
  });

  it('reaches a stream filtered to the incident’s check, and not one filtered to another check', async () => {
    const onCheck = await open(signals(alice, { token: aliceJob.token }));
    const onOther = await open(signals(alice, { token: aliceOther.token }));
    const incidentId = await declare({ title: 'Job stuck', jobId: aliceJob.id });
    expect(await onCheck.next()).toMatchObject({ event: 'incident', data: { incidentId, checkId: aliceJob.id, change: 'opened' } });
    await ping(aliceOther);
    // In publish order: the other check's stream hears its own ping first, so it skipped the incident.
    expect(await onOther.next()).toMatchObject({ event: 'signal', data: { checkId: aliceOther.id } });
    onCheck.ws.close();
    onOther.ws.close();
  });

  it('lets another workspace’s stream hear none of them', async () => {
    const theirs = await open(signals(bob));
    const incidentId = await declare({ title: 'Not yours' });
    expect((await t.request('POST', `/incidents/${incidentId}/acknowledge`, { token: alice.token })).status).toBe(200);
    expect((await t.request('POST', `/incident-notes/${incidentId}`, { token: alice.token, body: { body: 'private' } })).status).toBe(201);
    await ping(bobJob);
    expect(await theirs.next()).toMatchObject({ event: 'signal', data: { checkId: bobJob.id, workspaceId: bob.workspaceId } });
    theirs.ws.close();
  });
});
