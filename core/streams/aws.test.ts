import { ApiGatewayManagementApiClient, DeleteConnectionCommand, GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { WebSocketBroadcaster } from '../adapters/aws/broadcaster.js';
import { connectionsOf } from '../adapters/aws/streamConnections.js';
import { createApp } from '../app.js';
import type { Deps } from '../deps.js';
import { notFound, unauthorized } from '../http/errors.js';
import { createJob, type Job } from '../../test/support/signals.js';
import { workspaceChannel } from '../signals/streamEvents.js';
import { streamsHandler, type WebSocketEvent } from './aws.js';
import { statusPageChannel } from './connect.js';
import { STREAM_LIMITS } from '../http/streamLimits.js';
import type { User } from '../../test/support/users.js';

const api = new ApiGatewayManagementApiClient({ region: 'us-east-1', endpoint: 'https://ws.example.com/test' });
const apiMock = mockClient(api);

let t: TestContext;
let deps: Deps;
let app: ReturnType<typeof createApp>;
let handler: ReturnType<typeof streamsHandler>;
let alice: User;
let bob: User;
let aliceJob: Job;
let aliceOther: Job;
let bobJob: Job;
let connections = 0;

beforeAll(async () => {
  t = await createTestContext();
  // The AWS runtime's broadcaster over the test store, the management API mocked.
  deps = { ...t.deps, broadcaster: new WebSocketBroadcaster(t.deps.store, t.clock, api) };
  app = createApp(deps);
  handler = streamsHandler(deps, {
    // Stands in for core/statuspages' visibility rules (the real ones: the test below).
    statusPages: async (_deps, { slug, session }) => {
      if (slug === 'private-page' && session !== 'page-session') throw unauthorized('Status page session required');
      if (slug === 'missing') throw notFound('Status page');
      return { statusPageId: `page-${slug}` };
    },
  });
  alice = await t.signup('ws-alice');
  bob = await t.signup('ws-bob');
  aliceJob = await createJob(t, alice, await t.apiKey(alice));
  aliceOther = await createJob(t, alice, await t.apiKey(alice));
  bobJob = await createJob(t, bob, await t.apiKey(bob));
});

beforeEach(() => {
  apiMock.reset();
  apiMock.on(PostToConnectionCommand).resolves({});
  apiMock.on(DeleteConnectionCommand).resolves({});
});

const event = (routeKey: string, connectionId: string, extra: Partial<WebSocketEvent> = {}): WebSocketEvent => ({
  requestContext: { routeKey, connectionId, identity: { sourceIp: '203.0.113.7' } },
  ...extra,
});

/** `$connect` with a query; answers the connection id and the handler's result. */
async function connect(query: Record<string, string>, ip = '203.0.113.7') {
  const connectionId = `conn-${++connections}`;
  const result = await handler({ requestContext: { routeKey: '$connect', connectionId, identity: { sourceIp: ip } }, queryStringParameters: query });
  return { connectionId, result };
}

const posted = () =>
  apiMock.commandCalls(PostToConnectionCommand).map((call) => ({
    connectionId: call.args[0].input.ConnectionId,
    message: JSON.parse(new TextDecoder().decode(call.args[0].input.Data as Uint8Array)) as { event: string; data: { checkId: number } },
  }));

async function ping(job: Job) {
  t.clock.advanceSeconds(2); // past the 1-second dedup window
  expect((await app.request(`http://localhost/api/signals/ping/${job.token}`, {}, { incoming: { socket: { remoteAddress: '127.0.0.1' } } })).status).toBe(200);
}

describe('$connect: the signal stream', () => {
  it('stores the user’s workspaces as subscriptions; a ping reaches them and no other workspace', async () => {
    const mine = await connect({ stream: 'signals', access_token: alice.token });
    const theirs = await connect({ stream: 'signals', access_token: bob.token });
    expect(mine.result).toEqual({ statusCode: 200 });
    expect(await connectionsOf(t.deps.store, workspaceChannel(alice.workspaceId), t.clock.now())).toEqual([mine.connectionId]);

    await ping(aliceJob);
    const messages = posted();
    expect(messages.map((m) => m.connectionId)).toEqual([mine.connectionId, mine.connectionId]);
    expect(messages.map((m) => m.message.event)).toEqual(['signal', 'check']);
    expect(messages[0]?.message.data).toMatchObject({ checkId: aliceJob.id, workspaceId: alice.workspaceId, signal: { type: 'SUCCESS' } });
    expect(messages[1]?.message.data).toMatchObject({ checkId: aliceJob.id, status: 'OK' });
    expect(messages.some((m) => m.connectionId === theirs.connectionId)).toBe(false);
  });

  it('with ?token= hears only that check', async () => {
    const filtered = await connect({ stream: 'signals', access_token: alice.token, token: aliceOther.token });
    expect(filtered.result.statusCode).toBe(200);
    await ping(aliceJob);
    expect(posted().some((m) => m.connectionId === filtered.connectionId)).toBe(false);
    apiMock.resetHistory();
    await ping(aliceOther);
    const mine = posted().filter((m) => m.connectionId === filtered.connectionId);
    expect(mine.map((m) => m.message.data.checkId)).toEqual([aliceOther.id, aliceOther.id]);
  });

  it('refuses bad credentials with 401, another workspace’s check with 404 and a bad query with 400, storing nothing', async () => {
    const refusals = [
      [{ stream: 'signals' }, 401],
      [{ stream: 'signals', access_token: 'not-a-jwt' }, 401],
      [{ stream: 'signals', access_token: await t.apiKey(alice) }, 401],
      [{ stream: 'signals', access_token: alice.token, token: bobJob.token }, 404],
      [{ access_token: alice.token }, 400],
      [{ stream: 'everything', access_token: alice.token }, 400],
    ] as const;
    for (const [query, status] of refusals) {
      const { connectionId, result } = await connect({ ...query });
      expect(result.statusCode, JSON.stringify(query)).toBe(status);
      expect(JSON.parse(result.body ?? '{}')).toMatchObject({ statusCode: status, error: expect.any(String), message: expect.any(String) });
      const rows = await t.deps.store.entities.streamConnection.query.byConnection({ connectionId }).go();
      expect(rows.data).toEqual([]);
    }
  });

  it('allows 30 connections per 60 s per user, the limit the SSE path counts too', async () => {
    const viewer = await t.signup('ws-busy');
    for (let i = 0; i < 30; i++) {
      const opened = await connect({ stream: 'signals', access_token: viewer.token });
      expect(opened.result.statusCode).toBe(200);
      await handler(event('$disconnect', opened.connectionId)); // closed ones count too; open ones are capped apart
    }
    const refused = await connect({ stream: 'signals', access_token: viewer.token });
    expect(refused.result.statusCode).toBe(429);
    expect(JSON.parse(refused.result.body ?? '{}')).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED' });
    t.clock.advanceSeconds(60);
    expect((await connect({ stream: 'signals', access_token: viewer.token })).result.statusCode).toBe(200);
  });
});

describe('broadcast cleanup and closing', () => {
  it('a connection answering Gone is deleted on every channel', async () => {
    const gone = await connect({ stream: 'signals', access_token: alice.token });
    apiMock.on(PostToConnectionCommand, { ConnectionId: gone.connectionId }).rejects(new GoneException({ message: 'gone', $metadata: { httpStatusCode: 410 } }));
    await ping(aliceJob);
    expect(await connectionsOf(t.deps.store, workspaceChannel(alice.workspaceId), t.clock.now())).not.toContain(gone.connectionId);
    expect((await t.deps.store.entities.streamConnection.query.byConnection({ connectionId: gone.connectionId }).go()).data).toEqual([]);
  });

  it('$disconnect forgets the connection', async () => {
    const { connectionId } = await connect({ stream: 'signals', access_token: alice.token });
    expect(await handler(event('$disconnect', connectionId))).toEqual({ statusCode: 200 });
    expect(await connectionsOf(t.deps.store, workspaceChannel(alice.workspaceId), t.clock.now())).not.toContain(connectionId);
  });

  it('removing a member drops their connections at API Gateway', async () => {
    const carol = await t.signup('ws-carol');
    const added = await app.request(`http://localhost/api/workspaces/${alice.workspaceId}/members`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: carol.email, role: 'VIEWER' }),
    });
    expect(added.status).toBe(201);
    const { connectionId } = await connect({ stream: 'signals', access_token: carol.token });
    const removed = await app.request(`http://localhost/api/workspaces/${alice.workspaceId}/members/${carol.userId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${alice.token}` },
    });
    expect(removed.status).toBe(204);
    expect(apiMock.commandCalls(DeleteConnectionCommand).map((call) => call.args[0].input.ConnectionId)).toEqual([connectionId]);
    expect((await t.deps.store.entities.streamConnection.query.byConnection({ connectionId }).go()).data).toEqual([]);
  });

  it('logout everywhere drops every connection of the user', async () => {
    const dave = await t.signup('ws-dave');
    const first = await connect({ stream: 'signals', access_token: dave.token });
    const second = await connect({ stream: 'signals', access_token: dave.token });
    const out = await app.request('http://localhost/api/auth/logout', {
      method: 'POST',
      headers: { authorization: `Bearer ${dave.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ everywhere: true }),
    });
    expect(out.status).toBe(204);
    const closed = apiMock.commandCalls(DeleteConnectionCommand).map((call) => call.args[0].input.ConnectionId);
    expect(closed.sort()).toEqual([first.connectionId, second.connectionId].sort());
    expect((await connect({ stream: 'signals', access_token: dave.token })).result.statusCode).toBe(401);
  });
  it('a password change drops every connection of the user', async () => {
    const erin = await t.signup('ws-erin');
    const first = await connect({ stream: 'signals', access_token: erin.token });
    const changed = await app.request(
      'http://localhost/api/auth/password',
      {
        method: 'POST',
        headers: { authorization: `Bearer ${erin.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ currentPassword: erin.password, newPassword: 'a brand new passphrase 9' }),
      },
      { incoming: { socket: { remoteAddress: '127.0.0.1' } } },
    );
    expect(changed.status).toBe(200);
    expect(apiMock.commandCalls(DeleteConnectionCommand).map((call) => call.args[0].input.ConnectionId)).toEqual([first.connectionId]);
    expect((await connect({ stream: 'signals', access_token: erin.token })).result.statusCode).toBe(401);
  });
});

describe('$connect: the public status stream', () => {
  it('subscribes to the page’s channel with the visibility the page decides', async () => {
    const open = await connect({ stream: 'status', slug: 'acme' });
    expect(open.result.statusCode).toBe(200);
    expect((await connect({ stream: 'status', slug: 'private-page' })).result.statusCode).toBe(401);
    expect((await connect({ stream: 'status', slug: 'private-page', session: 'page-session' })).result.statusCode).toBe(200);
    expect((await connect({ stream: 'status', slug: 'missing' })).result.statusCode).toBe(404);
    expect((await connect({ stream: 'status', slug: 'Not A Slug' })).result.statusCode).toBe(400);

    await deps.broadcaster.publish({ channel: statusPageChannel('page-acme'), type: 'component', data: { componentId: 1, status: 'OUTAGE' } });
    expect(posted()).toEqual([{ connectionId: open.connectionId, message: { event: 'component', data: { componentId: 1, status: 'OUTAGE' } } }]);
  });

  it('with core/statuspages’ own rules: a public page streams, a private one is 404 but to a member, a password page needs its session', async () => {
    const real = streamsHandler(deps);
    let n = 0;
    const on = async (query: Record<string, string>) =>
      (await real({ requestContext: { routeKey: '$connect', connectionId: `real-${++n}`, identity: { sourceIp: '192.0.2.40' } }, queryStringParameters: query })).statusCode;
    const page = async (body: Record<string, unknown>) => {
      const res = await app.request('http://localhost/api/status-pages', {
        method: 'POST',
        headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Acme', slug: `ws-${Date.now().toString(36)}-${++n}`, ...body }),
      });
      expect(res.status).toBe(201);
      return (await res.json()) as { id: number; slug: string };
    };
    const open = await page({});
    expect(await on({ stream: 'status', slug: open.slug })).toBe(200);
    const stored = await t.deps.store.entities.streamConnection.query.byConnection({ connectionId: `real-${n}` }).go();
    expect(stored.data.map((row) => row.channel)).toEqual([statusPageChannel(open.id)]);
    const hidden = await page({ visibility: 'PRIVATE' });
    expect(await on({ stream: 'status', slug: hidden.slug })).toBe(404);
    expect(await on({ stream: 'status', slug: hidden.slug, session: bob.token })).toBe(404);
    expect(await on({ stream: 'status', slug: hidden.slug, session: alice.token })).toBe(200);
    const locked = await page({ visibility: 'PASSWORD_PROTECTED', password: 'open sesame 1' });
    expect(await on({ stream: 'status', slug: locked.slug })).toBe(401);
    const auth = await app.request(
      `http://localhost/api/public/status/${locked.slug}/auth`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ password: 'open sesame 1' }),
      },
      { incoming: { socket: { remoteAddress: '192.0.2.41' } } },
    );
    const { token } = (await auth.json()) as { token: string };
    expect(await on({ stream: 'status', slug: locked.slug, session: token })).toBe(200);
    expect(await on({ stream: 'status', slug: 'no-such-page-x' })).toBe(404);
  });

  it('limits anonymous connections to 30 per 60 s per address', async () => {
    for (let i = 0; i < 30; i++) {
      const opened = await connect({ stream: 'status', slug: 'acme' }, '198.51.100.9');
      expect(opened.result.statusCode).toBe(200);
      await handler(event('$disconnect', opened.connectionId));
    }
    expect((await connect({ stream: 'status', slug: 'acme' }, '198.51.100.9')).result.statusCode).toBe(429);
    expect((await connect({ stream: 'status', slug: 'acme' }, '198.51.100.10')).result.statusCode).toBe(200);
  });
});

describe('$default', () => {
  it('answers {"action":"ping"} with {"event":"pong"}, and anything else with an error event', async () => {
    expect(await handler(event('$default', 'c', { body: '{"action":"ping"}' }))).toEqual({ statusCode: 200, body: '{"event":"pong"}' });
    expect(await handler(event('$default', 'c', { body: Buffer.from('{"action":"ping"}').toString('base64'), isBase64Encoded: true }))).toEqual({
      statusCode: 200,
      body: '{"event":"pong"}',
    });
    for (const body of ['not json', '{"action":"subscribe"}', '']) {
      const answer = await handler(event('$default', 'c', { body }));
      expect(JSON.parse(answer.body ?? '{}')).toMatchObject({ event: 'error', data: { statusCode: 400 } });
    }
  });
});

describe('open-connection caps and closes on AWS', () => {
  const json = (method: string, path: string, token: string, body?: unknown) =>
    app.request(
      `http://localhost/api${path}`,
      {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      },
      { incoming: { socket: { remoteAddress: '127.0.0.1' } } },
    );

  it(`refuses a $connect past ${STREAM_LIMITS.perAddress} live connections of an address with 429 and Retry-After; a $disconnect frees a place`, async () => {
    const ip = '198.51.100.77';
    const opened = [];
    for (let i = 0; i < STREAM_LIMITS.perAddress; i++) opened.push(await connect({ stream: 'status', slug: 'acme' }, ip));
    expect(opened.map((o) => o.result.statusCode)).toEqual(opened.map(() => 200));
    const refused = await connect({ stream: 'status', slug: 'acme' }, ip);
    expect(refused.result).toMatchObject({ statusCode: 429, headers: { 'Retry-After': String(STREAM_LIMITS.retryAfterSeconds) } });
    expect(JSON.parse(refused.result.body ?? '{}')).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED', message: expect.stringContaining('address') });
    expect((await t.deps.store.entities.streamConnection.query.byConnection({ connectionId: refused.connectionId }).go()).data).toEqual([]);
    await handler(event('$disconnect', opened[0]?.connectionId ?? ''));
    t.clock.advanceSeconds(60); // a new rate-limit window: only the cap is in play
    expect((await connect({ stream: 'status', slug: 'acme' }, ip)).result.statusCode).toBe(200);
    // Expired rows (API Gateway's 2-hour cap passed, $disconnect never ran) are not counted.
    t.clock.advanceSeconds(2 * 3600);
    expect((await connect({ stream: 'status', slug: 'acme' }, ip)).result.statusCode).toBe(200);
  });

  it(`refuses a user’s $connect past ${STREAM_LIMITS.perUser} live connections, from any address`, async () => {
    const viewer = await t.signup('ws-capped');
    for (let i = 0; i < STREAM_LIMITS.perUser; i++) expect((await connect({ stream: 'signals', access_token: viewer.token }, `192.0.2.${100 + i}`)).result.statusCode).toBe(200);
    const refused = await connect({ stream: 'signals', access_token: viewer.token }, '192.0.2.99');
    expect(refused.result.statusCode).toBe(429);
    expect(JSON.parse(refused.result.body ?? '{}')).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('user') });
  });

  it('logout {refresh_token} deletes that session’s connections at API Gateway, not the other session’s', async () => {
    const frank = await t.signup('ws-frank');
    const login = await app.request(
      'http://localhost/api/oauth/token',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'password', username: frank.email, password: frank.password }),
      },
      { incoming: { socket: { remoteAddress: '127.0.0.1' } } },
    );
    const other = (await login.json()) as { access_token: string };
    const mine = await connect({ stream: 'signals', access_token: frank.token }, '192.0.2.61');
    const theirs = await connect({ stream: 'signals', access_token: other.access_token }, '192.0.2.62');
    expect([mine.result.statusCode, theirs.result.statusCode]).toEqual([200, 200]);
    expect((await json('POST', '/auth/logout', frank.token, { refresh_token: frank.refreshToken })).status).toBe(204);
    expect(apiMock.commandCalls(DeleteConnectionCommand).map((call) => call.args[0].input.ConnectionId)).toEqual([mine.connectionId]);
    expect((await t.deps.store.entities.streamConnection.query.byConnection({ connectionId: mine.connectionId }).go()).data).toEqual([]);
    expect((await connect({ stream: 'signals', access_token: frank.token }, '192.0.2.61')).result.statusCode).toBe(401);
  });

  it('a page turned PRIVATE deletes its status connections at API Gateway and refuses them again', async () => {
    const real = streamsHandler(deps);
    const owner = await t.signup('ws-narrow'); // a fresh session: the clock moved past older tokens' expiry above
    const slug = `ws-narrow-${Date.now().toString(36)}`;
    const created = await json('POST', '/status-pages', owner.token, { name: 'Narrowed', slug });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const on = (connectionId: string) =>
      real({ requestContext: { routeKey: '$connect', connectionId, identity: { sourceIp: '192.0.2.70' } }, queryStringParameters: { stream: 'status', slug } });
    expect((await on('narrow-1')).statusCode).toBe(200);
    expect((await on('narrow-2')).statusCode).toBe(200);
    const bystander = await connect({ stream: 'signals', access_token: owner.token }, '192.0.2.71');
    expect((await json('PATCH', `/status-pages/${id}`, owner.token, { visibility: 'PRIVATE' })).status).toBe(200);
    const closed = apiMock.commandCalls(DeleteConnectionCommand).map((call) => call.args[0].input.ConnectionId);
    expect(closed.sort()).toEqual(['narrow-1', 'narrow-2']);
    expect(closed).not.toContain(bystander.connectionId);
    expect(await connectionsOf(t.deps.store, statusPageChannel(id), t.clock.now())).toEqual([]);
    expect((await on('narrow-3')).statusCode).toBe(404);
  });
});
