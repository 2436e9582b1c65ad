import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { startLocalServer, type LocalServer } from '../../localServer.js';
import { RequestsFirst } from './requestsFirst.js';

/** A store call the test answers by hand: `started` says whether it was sent, `answer` ends it. */
function pendingCall(gate: RequestsFirst, background = true) {
  let answer = () => {};
  const call = { started: false, answer: () => answer() };
  const send = () =>
    gate.call(
      () =>
        new Promise<void>((resolve) => {
          call.started = true;
          answer = resolve;
        }),
    );
  const done = background ? gate.background(send) : send();
  return { call, done };
}
/** Lets every promise callback already queued run (no timers: the gate's decisions are all in microtasks). */
const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('background store calls yield to requests', () => {
  it("lets idle-many background calls go with no request in flight, busy-many while one is, and a request's own calls always", async () => {
    const gate = new RequestsFirst(4, 1);
    const background = Array.from({ length: 6 }, () => pendingCall(gate));
    await settle();
    expect(background.map(({ call }) => call.started)).toEqual([true, true, true, true, false, false]);

    let endRequest = () => {};
    const requestCalls: ReturnType<typeof pendingCall>[] = [];
    const request = gate.request(async () => {
      // Sent at once although six background calls are ahead of it, four of them in flight.
      requestCalls.push(pendingCall(gate, false), pendingCall(gate, false));
      await new Promise<void>((resolve) => (endRequest = resolve));
    });
    await settle();
    expect(requestCalls.map(({ call }) => call.started)).toEqual([true, true]);
    expect(gate.state).toEqual({ requests: 1, background: 4, waiting: 2 });

    // Background calls ending while the request is in flight free no place until fewer than `busy` run.
    for (const { call } of background.slice(0, 3)) call.answer();
    await settle();
    expect(background.map(({ call }) => call.started)).toEqual([true, true, true, true, false, false]);
    background[3]?.call.answer();
    await settle();
    // One at a time: background work never stops altogether.
    expect(background.map(({ call }) => call.started)).toEqual([true, true, true, true, true, false]);

    for (const { call } of requestCalls) call.answer();
    endRequest();
    await request;
    await settle();
    expect(background.map(({ call }) => call.started)).toEqual([true, true, true, true, true, true]);
    for (const { call } of background.slice(4)) call.answer();
    await Promise.all(background.map(({ done }) => done));
    expect(gate.state).toEqual({ requests: 0, background: 0, waiting: 0 });
  });

  it('counts a request that throws before its first await as ended', async () => {
    const gate = new RequestsFirst(2, 1);
    expect(() =>
      gate.request(() => {
        throw new Error('no handler');
      }),
    ).toThrow('no handler');
    await expect(gate.request(async () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(gate.state).toEqual({ requests: 0, background: 0, waiting: 0 });
  });

  it('refuses a limit that would stop background work', () => {
    expect(() => new RequestsFirst(4, 0)).toThrow();
    expect(() => new RequestsFirst(1, 2)).toThrow();
  });
});

describe('a request arriving while a large backlog drains (npm start)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-requests-first-'));
  let server: LocalServer;
  beforeAll(async () => {
    server = await startLocalServer(loadConfig({ PORT: '0', VIGIL_DATA_DIR: dataDir, VIGIL_SWEEP_SECONDS: '3600' }), { log: false });
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("is served in a few of the backlog's store calls, long before the backlog is done", async () => {
    const signup = await fetch(`${server.baseUrl}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'first@example.com', password: 'correct horse battery' }),
    });
    const { access_token: token } = (await signup.json()) as { access_token: string };
    const created = await fetch(`${server.baseUrl}/checks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'nightly', projectId: 1, intervalSeconds: 300, graceSeconds: 60 }),
    });
    const check = (await created.json()) as { token: string };

    // The backlog: each message makes ten store reads at once, as a batch of flips does many.
    const { store, config } = server.deps;
    let backlogCalls = 0;
    let handled = 0;
    server.deps.queue.consume('alerts', async (messages) => {
      await Promise.all(
        messages.flatMap((message) =>
          Array.from({ length: 10 }, async (_, i) => {
            await store.client.send(new GetCommand({ TableName: config.tableName, Key: { pk: `backlog#${message.id}`, sk: String(i) } }));
            backlogCalls++;
          }),
        ),
      );
      handled += messages.length;
      return { failedIds: [] };
    });
    const messages = 50;
    await server.deps.queue.publish(
      'alerts',
      Array.from({ length: messages }, (_, i) => ({ backlog: i })),
    );
    // Into the drain: a round of 25 messages, 250 reads, is under way.
    await expect.poll(() => backlogCalls, { interval: 1, timeout: 30_000 }).toBeGreaterThan(50);

    const before = backlogCalls;
    const ping = await fetch(`${server.baseUrl}/signals/ping/${check.token}`);
    expect(ping.status).toBe(200);
    const during = backlogCalls - before;
    // What was in flight when it arrived may finish first, then a call or two at a time: without
    // the gate it waited behind every read of the round for each of its own store calls (over 600).
    expect(during).toBeLessThan(150);
    expect(handled).toBeLessThan(messages);
    await expect.poll(() => handled, { timeout: 60_000 }).toBe(messages);
  });
});
