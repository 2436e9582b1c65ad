import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import type { BroadcastEvent } from '../ports/index.js';
import { checkOf, createJob, recordStoreRequests, signalsOf } from '../../test/support/signals.js';

let t: TestContext;
let user: Awaited<ReturnType<TestContext['signup']>>;
let key: string;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('pinger');
  key = await t.apiKey(user);
});

const job = (body: Parameters<typeof createJob>[3] = {}) => createJob(t, user, key, body);

/** One ping while every PutItem to the store fails (its error log silenced). */
async function pingWhilePutsFail(token: string) {
  const client = t.deps.store.hot;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'PutItemCommand') throw new Error('store unavailable');
      return next(args);
    },
    { step: 'initialize', name: 'failPuts' },
  );
  const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    return await t.request('GET', `/signals/ping/${token}`);
  } finally {
    client.middlewareStack.remove('failPuts');
    logged.mockRestore();
  }
}
const incidents = () => t.deps.queue.peek('incidents') as { type: string; checkId: number; from?: string; to?: string; cause?: string; dependencies?: unknown }[];
const drainMessages = () => t.deps.queue.peek('incidents').length;

describe('token pings', () => {
  it('answers GET, POST and HEAD with 200 OK and records each with its source', async () => {
    const { id, token } = await job();
    const get = await t.request('GET', `/signals/ping/${token}`, { headers: { 'user-agent': 'cron/1.0', 'x-test-ip': '203.0.113.9' } });
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ message: 'OK' });
    t.clock.advanceSeconds(2);
    expect((await t.request('POST', `/signals/ping/${token}`, { rawBody: 'done' })).status).toBe(200);
    t.clock.advanceSeconds(2);
    const head = await t.request('HEAD', `/signals/ping/${token}`);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    const signals = await signalsOf(t, id);
    expect(signals.map((s) => [s.type, s.method])).toEqual([
      ['SUCCESS', 'GET'],
      ['SUCCESS', 'POST'],
      ['SUCCESS', 'HEAD'],
    ]);
    expect(signals[0]).toMatchObject({ sourceIp: '203.0.113.9', userAgent: 'cron/1.0', source: 'PING' });
    expect(signals[0]?.expiresAt).toBe(Math.floor(Date.parse(signals[0]!.receivedAt) / 1000) + 30 * 86_400);
    const check = await checkOf(t, token);
    expect(check.status).toBe('OK');
    expect(check.lastPingAt).toBe(t.clock.now().toISOString());
    expect(check.nextDueAt).toBe(new Date(t.clock.now().getTime() + 10_000).toISOString());
  });

  it('publishes a status change only when the status moves', async () => {
    const { id, token } = await job();
    const before = drainMessages();
    await t.request('GET', `/signals/ping/${token}`);
    const first = incidents().slice(before);
    expect(first).toEqual([expect.objectContaining({ type: 'check.status_changed', checkId: id, from: 'NEW', to: 'OK', cause: 'PING' })]);
    t.clock.advanceSeconds(2);
    await t.request('GET', `/signals/ping/${token}`);
    expect(incidents().length).toBe(before + 1);
  });

  it('names the project in a status change found by the steady-state update', async () => {
    const { id, token } = await job();
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(2);
    // The check is known now: this ping's update returns only the old values it overwrote.
    const before = drainMessages();
    const requests = recordStoreRequests(t.deps.store);
    await t.request('GET', `/signals/ping/${token}/fail`);
    requests.stop();
    expect(requests.commands[0]).toBe('UpdateItemCommand');
    expect(incidents().slice(before)).toEqual([
      expect.objectContaining({ type: 'check.status_changed', checkId: id, workspaceId: user.workspaceId, projectId: user.projectId, from: 'OK', to: 'DOWN', cause: 'FAIL_PING' }),
    ]);
    expect((await checkOf(t, token)).status).toBe('DOWN');
  });

  it('404s unknown and malformed tokens with CHECK_NOT_FOUND and stores nothing', async () => {
    expectError(await t.request('GET', '/signals/ping/00000000-0000-4000-8000-000000000000'), 404, 'CHECK_NOT_FOUND');
    expectError(await t.request('POST', '/signals/ping/not%20a%20token/fail', { rawBody: 'x' }), 404, 'CHECK_NOT_FOUND');
    expectError(await t.request('GET', `/signals/ping/${'a'.repeat(200)}/start`), 404, 'CHECK_NOT_FOUND');
  });

  it('404s a deleted check, and a ping never creates an item', async () => {
    const { id, token } = await job();
    expect((await t.request('DELETE', `/v1/jobs/${id}`, { token: key })).status).toBe(204);
    expectError(await t.request('GET', `/signals/ping/${token}`), 404, 'CHECK_NOT_FOUND');
    expectError(await t.request('GET', `/signals/ping/${token}/start`), 404, 'CHECK_NOT_FOUND');
    const ghost = '11111111-2222-4333-8444-555555555555';
    expectError(await t.request('POST', `/signals/ping/${ghost}/start`), 404, 'CHECK_NOT_FOUND');
    expectError(await t.request('POST', `/signals/ping/${ghost}/fail`), 404, 'CHECK_NOT_FOUND');
    expect((await t.deps.store.entities.check.get({ token: ghost }).go()).data).toBeNull();
    expect(await signalsOf(t, id)).toEqual([]);
  });

  it('404s a check deleted after it was pinged: the update condition refuses it', async () => {
    const { id, token } = await job();
    await t.request('GET', `/signals/ping/${token}`);
    expect((await t.request('DELETE', `/v1/jobs/${id}`, { token: key })).status).toBe(204);
    const deleted = await t.deps.store.entities.check.get({ token }).go({ consistent: true });
    expect(deleted.data?.deletedAt).toBeDefined();
    t.clock.advanceSeconds(2);
    const requests = recordStoreRequests(t.deps.store);
    expectError(await t.request('GET', `/signals/ping/${token}`), 404, 'CHECK_NOT_FOUND');
    requests.stop();
    expect(requests.commands[0]).toBe('UpdateItemCommand');
    expect(requests.commands).not.toContain('PutItemCommand');
    expect((await t.deps.store.entities.check.get({ token }).go({ consistent: true })).data).toEqual(deleted.data);
    expect(await signalsOf(t, id)).toEqual([]);
  });

  it('405s other methods with an Allow header', async () => {
    const { token } = await job();
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const res = await t.request(method, `/signals/ping/${token}`);
      expectError(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).toContain('POST');
    }
    expectError(await t.request('DELETE', `/signals/ping/${token}/fail`), 405);
  });

  it('refuses a body over 10,240 bytes with 413 and stores nothing; 10,240 bytes is fine', async () => {
    const { id, token } = await job();
    expectError(await t.request('POST', `/signals/ping/${token}`, { rawBody: 'x'.repeat(10_241) }), 413, 'PAYLOAD_TOO_LARGE');
    expectError(await t.request('POST', `/signals/ping/${token}`, { rawBody: 'é'.repeat(5_121) }), 413);
    expectError(await t.request('POST', `/signals/ping/${token}`, { rawBody: 'small', headers: { 'content-length': '20000' } }), 413);
    expect(await signalsOf(t, id)).toEqual([]);
    expect((await checkOf(t, token)).status).toBe('NEW');
    expect((await t.request('POST', `/signals/ping/${token}`, { rawBody: 'y'.repeat(10_240) })).status).toBe(200);
    expect((await signalsOf(t, id))[0]?.payload).toHaveLength(10_240);
  });

  it('keeps a JSON body as JSON and any other body as text', async () => {
    const { id, token } = await job();
    await t.request('POST', `/signals/ping/${token}`, { body: { rows: 12 } });
    t.clock.advanceSeconds(2);
    await t.request('POST', `/signals/ping/${token}`, { rawBody: '{"broken": ', headers: { 'content-type': 'application/json' } });
    const [json, text] = await signalsOf(t, id);
    expect(json).toMatchObject({ payload: '{"rows":12}', payloadIsJson: true });
    expect(text).toMatchObject({ payload: '{"broken": ', payloadIsJson: false });
  });

  it('deduplicates a second ping within 1 s: 200, nothing stored', async () => {
    const { id, token } = await job();
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advance(999);
    const requests = recordStoreRequests(t.deps.store);
    const again = await t.request('GET', `/signals/ping/${token}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ message: 'OK' });
    expect(await signalsOf(t, id)).toHaveLength(1);
    // The refused update, then one read to tell a duplicate from a missing check.
    expect(requests.commands).toEqual(['UpdateItemCommand', 'GetItemCommand', 'QueryCommand']);
    requests.commands.length = 0;
    t.clock.advance(1);
    await t.request('GET', `/signals/ping/${token}`);
    requests.stop();
    expect(requests.commands).toEqual(['UpdateItemCommand', 'PutItemCommand']);
    expect(await signalsOf(t, id)).toHaveLength(2);
  });

  it('limits a token to 100 stored pings per 60 s with 429 and Retry-After', async () => {
    const { id, token } = await job({ intervalSeconds: 60 });
    t.clock.set(new Date(Math.ceil(t.clock.now().getTime() / 60_000) * 60_000));
    // START and SUCCESS deduplicate separately, so two land each second.
    for (let second = 0; second < 50; second++) {
      expect((await t.request('GET', `/signals/ping/${token}/start`)).status).toBe(200);
      expect((await t.request('GET', `/signals/ping/${token}`)).status).toBe(200);
      t.clock.advanceSeconds(1);
    }
    const limited = await t.request('GET', `/signals/ping/${token}`);
    expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('10');
    expect(limited.headers.get('ratelimit-limit')).toBe('100');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(await signalsOf(t, id)).toHaveLength(100);
    t.clock.advanceSeconds(10);
    expect((await t.request('GET', `/signals/ping/${token}`)).status).toBe(200);
  });

  it('limits unknown tokens per client address', async () => {
    const headers = { 'x-test-ip': '198.51.100.77' };
    for (let i = 0; i < 100; i++) expectError(await t.request('GET', `/signals/ping/unknown-${i}`, { headers }), 404);
    expectError(await t.request('GET', '/signals/ping/unknown-x', { headers }), 429, 'RATE_LIMITED');
    expectError(await t.request('GET', '/signals/ping/unknown-x', { headers: { 'x-test-ip': '198.51.100.78' } }), 404);
  });
});

describe('documentation', () => {
  it('lists the signal paths in the OpenAPI document', async () => {
    const doc = await t.request<{ paths: Record<string, Record<string, unknown>> }>('GET', '/openapi.json');
    expect(doc.status).toBe(200);
    for (const path of ['/signals/ping/{token}', '/signals/ping/{token}/start', '/signals/ping/{token}/fail', '/signals/s/{slug}', '/signals/token/{token}', '/signals/sse']) {
      expect(Object.keys(doc.body.paths)).toContain(path);
    }
    expect(doc.body.paths['/signals/p/{pingKey}/{slug}']?.get).toMatchObject({ deprecated: true });
  });
});

describe('start and fail', () => {
  it('a START then SUCCESS records the duration; /fail moves the check to DOWN at once', async () => {
    const { id, token } = await job();
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(3);
    await t.request('POST', `/signals/ping/${token}/start`);
    expect((await checkOf(t, token)).status).toBe('OK');
    t.clock.advance(4_500);
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(2);
    const before = drainMessages();
    await t.request('GET', `/signals/ping/${token}/fail`);
    const signals = await signalsOf(t, id);
    expect(signals.map((s) => [s.type, s.durationMs])).toEqual([
      ['SUCCESS', undefined],
      ['START', undefined],
      ['SUCCESS', 4500],
      ['FAIL', undefined],
    ]);
    const check = await checkOf(t, token);
    expect(check.status).toBe('DOWN');
    expect(check.dueAt).toBeUndefined();
    expect(incidents().slice(before)).toEqual([expect.objectContaining({ checkId: id, from: 'OK', to: 'DOWN', cause: 'FAIL_PING' })]);
  });

  it('a paused check records the signal and stays PAUSED', async () => {
    const { id, token } = await job();
    expect((await t.request('POST', `/v1/jobs/${id}/pause`, { token: key })).status).toBe(200);
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(2);
    await t.request('GET', `/signals/ping/${token}/fail`);
    expect((await checkOf(t, token)).status).toBe('PAUSED');
    expect((await signalsOf(t, id)).map((s) => s.type)).toEqual(['SUCCESS', 'FAIL']);
  });
});

describe('pipeline', () => {
  it('reports valid dependencies to the incident worker, and only those', async () => {
    const { id, token } = await job();
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(2);
    const before = drainMessages();
    await t.request('POST', `/signals/ping/${token}`, {
      body: {
        dependencies: [
          { name: 'postgres', status: 'down' },
          { name: 'redis', status: 'ok' },
        ],
      },
    });
    t.clock.advanceSeconds(2);
    await t.request('POST', `/signals/ping/${token}`, { body: { dependencies: [{ name: 'postgres', status: 'sideways' }] } });
    t.clock.advanceSeconds(2);
    await t.request('POST', `/signals/ping/${token}`, { body: { dependencies: 'postgres' } });
    expect(incidents().slice(before)).toEqual([
      expect.objectContaining({
        type: 'dependencies.reported',
        checkId: id,
        dependencies: [
          { name: 'postgres', status: 'down' },
          { name: 'redis', status: 'ok' },
        ],
      }),
    ]);
  });

  it('steady state: one conditional update, then one signal put, and no queue message', async () => {
    const { token } = await job();
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(5);
    const before = drainMessages();
    const requests = recordStoreRequests(t.deps.store);
    const res = await t.request('POST', `/signals/ping/${token}`, { body: { ok: true } });
    requests.stop();
    expect(res.status).toBe(200);
    expect(requests.commands).toEqual(['UpdateItemCommand', 'PutItemCommand']);
    expect(drainMessages()).toBe(before);
  });

  it('answers 500 when the signal cannot be stored, and the retry is not swallowed as a duplicate', async () => {
    const { id, token } = await job();
    const failed = await pingWhilePutsFail(token);
    expectError(failed, 500);
    const retried = await t.request('GET', `/signals/ping/${token}`);
    expect(retried.status).toBe(200);
    expect(await signalsOf(t, id)).toHaveLength(1);
  });

  it('still resolves the incident when the recovering ping fails to store its signal', async () => {
    const { id, token } = await job();
    expect((await t.request('GET', `/signals/ping/${token}/fail`)).status).toBe(200);
    await t.deps.queue.drain();
    const open = await t.request<{ items: { state: string }[] }>('GET', `/incidents?checkId=${id}&workspaceId=${user.workspaceId}`, { token: user.token });
    expect(open.body.items.map((i) => i.state)).toEqual(['ACTIVE']);
    t.clock.advanceSeconds(2);
    const failed = await pingWhilePutsFail(token);
    expectError(failed, 500);
    await t.deps.queue.drain();
    const after = await t.request<{ items: { state: string }[] }>('GET', `/incidents?checkId=${id}&workspaceId=${user.workspaceId}`, { token: user.token });
    expect(after.body.items.map((i) => i.state)).toEqual(['RESOLVED']);
    expect((await checkOf(t, token)).status).toBe('OK');
  });

  it('broadcasts the signal and the check update to stream listeners', async () => {
    const { id, token } = await job();
    const events: BroadcastEvent[] = [];
    const unsubscribe = t.deps.broadcaster.subscribe((event) => events.push(event));
    await t.request('GET', `/signals/ping/${token}`);
    unsubscribe();
    expect(events).toEqual([
      // Each event also names its check's topic, so a check-filtered stream is addressed directly.
      {
        channel: `workspace:${user.workspaceId}`,
        topic: `check:${id}`,
        type: 'signal',
        data: expect.objectContaining({ checkId: id, signal: expect.objectContaining({ type: 'SUCCESS' }) }),
      },
      { channel: `workspace:${user.workspaceId}`, topic: `check:${id}`, type: 'check', data: expect.objectContaining({ checkId: id, status: 'OK' }) },
    ]);
  });
});
