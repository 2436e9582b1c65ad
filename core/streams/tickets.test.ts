import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { createJob, type Job } from '../../test/support/signals.js';
import { openStream, serveWithStreams } from '../../test/support/streams.js';
import { LOCAL_STREAM_PATH } from './local.js';
import type { User } from '../../test/support/users.js';

/*
 * Stream tickets (no token in a URL): `POST /streams/ticket`, then
 * `?stream=signals&ticket=...` on the WebSocket. Over real sockets to the local upgrade, which
 * shares connectStream with API Gateway's `$connect`.
 */

type Message = { event: string; data?: { checkId?: number; workspaceId?: number } };

let t: TestContext;
let served: Awaited<ReturnType<typeof serveWithStreams>>;
let base: string;
let alice: User;
let bob: User;
let aliceJob: Job;
let bobJob: Job;

beforeAll(async () => {
  t = await createTestContext();
  served = await serveWithStreams(t);
  base = `ws://127.0.0.1:${served.port}${LOCAL_STREAM_PATH}`;
  alice = await t.signup('ticket-alice');
  bob = await t.signup('ticket-bob');
  aliceJob = await createJob(t, alice, await t.apiKey(alice));
  bobJob = await createJob(t, bob, await t.apiKey(bob));
});
afterAll(() => served.close());

const open = (query: Record<string, string>) => openStream<Message>(`${base}?${new URLSearchParams(query)}`);

async function ticketFor(token: string): Promise<string> {
  const res = await t.request<{ ticket: string; expiresIn: number }>('POST', '/streams/ticket', { token });
  expect(res.status).toBe(201);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.body.expiresIn).toBe(30);
  expect(res.body.ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return res.body.ticket;
}

async function ping(job: Job) {
  t.clock.advanceSeconds(2);
  expect((await t.request('GET', `/signals/ping/${job.token}`)).status).toBe(200);
}

describe('a stream ticket', () => {
  it("opens the signal stream without the access token in the URL, scoped to the user's workspaces", async () => {
    const client = await open({ stream: 'signals', ticket: await ticketFor(alice.token) });
    await ping(bobJob);
    await ping(aliceJob);
    expect((await client.next()).data).toMatchObject({ checkId: aliceJob.id, workspaceId: alice.workspaceId });
    client.ws.close();
    // The check filter holds with a ticket as with a token: another workspace's check is 404.
    await expect(open({ stream: 'signals', ticket: await ticketFor(alice.token), token: bobJob.token })).rejects.toMatchObject({ status: 404 });
  });

  it('works once: a second connect with it is 401', async () => {
    const ticket = await ticketFor(alice.token);
    const first = await open({ stream: 'signals', ticket });
    await expect(open({ stream: 'signals', ticket })).rejects.toMatchObject({ status: 401 });
    first.ws.close();
  });

  it('works once under concurrent connects: exactly one of them opens', async () => {
    const ticket = await ticketFor(alice.token);
    const tries = await Promise.allSettled(Array.from({ length: 5 }, () => open({ stream: 'signals', ticket })));
    const opened = tries.filter((r) => r.status === 'fulfilled');
    expect(opened).toHaveLength(1);
    expect(tries.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.status)).toEqual([401, 401, 401, 401]);
    for (const r of opened) (r as PromiseFulfilledResult<{ ws: WebSocket }>).value.ws.close();
  });

  it('expires after 30 s', async () => {
    const ticket = await ticketFor(alice.token);
    t.clock.advanceSeconds(31);
    await expect(open({ stream: 'signals', ticket })).rejects.toMatchObject({ status: 401 });
  });

  it('dies with its session: a logout before the connect voids it', async () => {
    const carol = await t.signup('ticket-carol');
    const ticket = await ticketFor(carol.token);
    expect((await t.request('POST', '/auth/logout', { token: carol.token, body: { refresh_token: carol.refreshToken } })).status).toBe(204);
    await expect(open({ stream: 'signals', ticket })).rejects.toMatchObject({ status: 401 });
  });

  it('refuses unknown tickets (401), bad ones and a ticket beside an access token (400)', async () => {
    await expect(open({ stream: 'signals', ticket: 'made-up-ticket' })).rejects.toMatchObject({ status: 401 });
    await expect(open({ stream: 'signals', ticket: '' })).rejects.toMatchObject({ status: 400 });
    await expect(open({ stream: 'signals', ticket: 'x'.repeat(129) })).rejects.toMatchObject({ status: 400 });
    const ticket = await ticketFor(alice.token);
    await expect(open({ stream: 'signals', ticket, access_token: alice.token })).rejects.toMatchObject({ status: 400 });
    // The 400 took nothing: the ticket still opens a stream.
    (await open({ stream: 'signals', ticket })).ws.close();
  });

  it('is for session users only: an API key or no credential is 401', async () => {
    expectError(await t.request('POST', '/streams/ticket', { token: await t.apiKey(alice) }), 401);
    expectError(await t.request('POST', '/streams/ticket'), 401);
  });
});
