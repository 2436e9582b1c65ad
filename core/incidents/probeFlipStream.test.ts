import { ApiGatewayManagementApiClient, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createCheck, LONG_SESSIONS, outboundBody, type User } from '../../test/support/checks.js';
import { startLoopbackServer } from '../../test/support/outbound.js';
import { pendingMessages, runRound } from '../../test/support/probes.js';
import { WebSocketBroadcaster } from '../adapters/aws/broadcaster.js';
import { subscribeConnection } from '../adapters/aws/streamConnections.js';
import { ALL_TOPICS, type BroadcastEvent } from '../ports/index.js';
import { canSubscribe } from '../signals/streamEvents.js';
import { handleIncidentMessages } from './worker.js';

/**
 * A probe flip reaches the signal streams from the incidents worker (the home region,
 * which holds the WebSocket API's endpoint), never from the probe (other regions, no endpoint).
 */
let t: TestContext;
let user: User;
let broken: Awaited<ReturnType<typeof startLoopbackServer>>;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1', ...LONG_SESSIONS });
  user = await t.signup('flipper');
  broken = await startLoopbackServer((_request, response) => {
    response.writeHead(500);
    response.end('broken');
  });
});
afterAll(() => broken.close());

const downCheck = async () => {
  const check = await createCheck(
    t,
    user,
    outboundBody(user, { name: `flip ${Math.random().toString(36).slice(2)}`, url: `${broken.origin}/`, regions: ['us-east-1'], failAfterConsecutive: 1 }),
  );
  await runRound(t, check.id);
  return check;
};

describe('probe flips on the streams', () => {
  it('locally: the probe publishes nothing; the worker publishes the flip once, and a stale redelivery nothing', async () => {
    const hub = t.deps.broadcaster;
    if (!canSubscribe(hub)) throw new Error('the local runtime has a stream hub');
    const heard: BroadcastEvent[] = [];
    const stop = hub.subscribe((event) => heard.push(event));
    const check = await downCheck();
    const ofCheck = () => heard.filter((e) => e.type === 'check' && (e.data as { checkId: number }).checkId === check.id);
    expect(ofCheck()).toEqual([]);
    const [message] = pendingMessages(t, 'check.status_changed', check.id);
    expect(message).toMatchObject({ cause: 'PROBE', to: 'DOWN' });
    await t.deps.queue.drain();
    expect(ofCheck().map((e) => [e.channel, (e.data as { status: string }).status])).toEqual([[`workspace:${user.workspaceId}`, 'DOWN']]);
    // The check has moved on: an old copy of the DOWN flip must not rewind a dashboard.
    const ref = (await t.deps.store.entities.checkRef.get({ checkId: check.id }).go()).data;
    await t.deps.store.entities.check
      .patch({ token: ref?.token ?? '' })
      .set({ status: 'OK' })
      .go();
    await handleIncidentMessages(t.deps, [{ id: 'stale', body: message }]);
    expect(ofCheck()).toHaveLength(1);
    stop();
    await t.request('DELETE', `/checks/${check.id}`, { token: user.token });
  });

  it('on AWS: the incidents worker posts the flip to the workspace’s WebSocket connections; non-probe causes are streamed by their own path', async () => {
    const api = new ApiGatewayManagementApiClient({ region: 'us-east-1', endpoint: 'https://ws.example.com/test' });
    const apiMock = mockClient(api);
    apiMock.on(PostToConnectionCommand).resolves({});
    const aws = { ...t.deps, broadcaster: new WebSocketBroadcaster(t.deps.store, t.clock, api) };
    await subscribeConnection(t.deps.store, {
      address: '192.0.2.1',
      connectionId: 'dashboard',
      subscriptions: [{ channel: `workspace:${user.workspaceId}`, topic: ALL_TOPICS }],
      userId: user.userId,
      now: t.clock.now(),
    });
    await subscribeConnection(t.deps.store, {
      address: '192.0.2.1',
      connectionId: 'elsewhere',
      subscriptions: [{ channel: 'workspace:999999', topic: ALL_TOPICS }],
      userId: 999999,
      now: t.clock.now(),
    });
    const check = await downCheck();
    const [message] = pendingMessages(t, 'check.status_changed', check.id);
    expect(await handleIncidentMessages(aws, [{ id: 'flip', body: message }])).toEqual({ failedIds: [] });
    const posts = apiMock.commandCalls(PostToConnectionCommand).map((call) => call.args[0].input);
    const checkPosts = posts
      .map((p) => ({ to: p.ConnectionId, body: JSON.parse(new TextDecoder().decode(p.Data as Uint8Array)) as { event: string; data: { checkId: number; status: string } } }))
      .filter((p) => p.body.event === 'check');
    expect(checkPosts.map((p) => [p.to, p.body.data.checkId, p.body.data.status])).toEqual([['dashboard', check.id, 'DOWN']]);
    // The incident the worker opens is announced the same way, to that workspace's connection only.
    const incidentPosts = posts
      .map((p) => ({ to: p.ConnectionId, body: JSON.parse(new TextDecoder().decode(p.Data as Uint8Array)) as { event: string; data: { checkId: number; change: string } } }))
      .filter((p) => p.body.event === 'incident');
    expect(incidentPosts.map((p) => [p.to, p.body.data.checkId, p.body.data.change])).toContainEqual(['dashboard', check.id, 'opened']);
    expect(incidentPosts.every((p) => p.to === 'dashboard')).toBe(true);
    apiMock.resetHistory();
    await handleIncidentMessages(aws, [{ id: 'ping', body: { ...message, cause: 'PING' } }]);
    expect(apiMock.commandCalls(PostToConnectionCommand).filter((c) => new TextDecoder().decode(c.args[0].input.Data as Uint8Array).includes('"event":"check"'))).toHaveLength(0);
    apiMock.restore();
  });
});
