import { ApiGatewayManagementApiClient, GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { mockClient } from 'aws-sdk-client-mock';
import { ulid } from 'ulid';
import { beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { ManualClock } from '../../clock.js';
import { ALL_TOPICS } from '../../ports/index.js';
import { createDynamoClient, ensureTable } from '../../store/client.js';
import { createStore, type Store } from '../../store/service.js';
import { encodeStreamEvent, WebSocketBroadcaster } from './broadcaster.js';
import { connectionsOf, forgetConnection, subscribeConnection } from './streamConnections.js';

/** Subscriptions to whole channels (every topic). */
const whole = (channels: string[]) => channels.map((channel) => ({ channel, topic: ALL_TOPICS }));
const decode = (data: unknown): unknown => JSON.parse(new TextDecoder().decode(data as Uint8Array));

describe('WebSocketBroadcaster', () => {
  const api = new ApiGatewayManagementApiClient({ region: 'us-east-1', endpoint: 'https://ws.example.com/test' });
  const apiMock = mockClient(api);
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  let store: Store;

  beforeAll(async () => {
    const client = createDynamoClient({ endpoint: inject('dynamoEndpoint') });
    const table = `t_${ulid()}`;
    await ensureTable(client, table);
    store = createStore(client, table);
  });

  beforeEach(() => {
    apiMock.reset();
    apiMock.on(PostToConnectionCommand).resolves({});
  });

  it('posts the event to every live connection of the channel and no other', async () => {
    const channel = `workspace:${ulid()}`;
    await subscribeConnection(store, { address: '192.0.2.1', connectionId: 'c1', subscriptions: whole([channel, 'other']), userId: 7, now: clock.now() });
    await subscribeConnection(store, { address: '192.0.2.1', connectionId: 'c2', subscriptions: whole([channel]), now: clock.now() });
    await subscribeConnection(store, { address: '192.0.2.1', connectionId: 'c3', subscriptions: whole(['other']), now: clock.now() });

    const event = { channel, type: 'check.updated', data: { checkId: 1, status: 'DOWN' } };
    await new WebSocketBroadcaster(store, clock, api).publish(event);

    const posts = apiMock.commandCalls(PostToConnectionCommand).map((call) => call.args[0].input);
    expect(posts.map((post) => post.ConnectionId).sort()).toEqual(['c1', 'c2']);
    // WebSocket messages are `{event, data}` (the SSE event name and its data).
    expect(decode(posts[0]?.Data)).toEqual({ event: 'check.updated', data: { checkId: 1, status: 'DOWN' } });
    expect(encodeStreamEvent(event)).toBe(new TextDecoder().decode(posts[0]?.Data as Uint8Array));
  });

  it('skips connections whose TTL has passed even before AWS deletes them', async () => {
    const channel = `workspace:${ulid()}`;
    await subscribeConnection(store, { address: '192.0.2.1', connectionId: 'old', subscriptions: whole([channel]), now: new Date('2026-03-01T09:00:00.000Z') });
    await subscribeConnection(store, { address: '192.0.2.1', connectionId: 'new', subscriptions: whole([channel]), now: clock.now() });
    expect(await connectionsOf(store, channel, clock.now())).toEqual(['new']);
  });

  it('forgets a connection that answers Gone, on every channel it had', async () => {
    const channel = `workspace:${ulid()}`;
    const second = `status:${ulid()}`;
    await subscribeConnection(store, { address: '192.0.2.1', connectionId: 'gone', subscriptions: whole([channel, second]), now: clock.now() });
    await subscribeConnection(store, { address: '192.0.2.1', connectionId: 'alive', subscriptions: whole([channel]), now: clock.now() });
    apiMock.on(PostToConnectionCommand, { ConnectionId: 'gone' }).rejects(new GoneException({ message: 'gone', $metadata: { httpStatusCode: 410 } }));

    await new WebSocketBroadcaster(store, clock, api).publish({ channel, type: 't', data: null });

    expect(await connectionsOf(store, channel, clock.now())).toEqual(['alive']);
    expect(await connectionsOf(store, second, clock.now())).toEqual([]);
  });

  it('keeps going when one post fails for another reason', async () => {
    const channel = `workspace:${ulid()}`;
    await subscribeConnection(store, { address: '192.0.2.1', connectionId: 'a', subscriptions: whole([channel]), now: clock.now() });
    await subscribeConnection(store, { address: '192.0.2.1', connectionId: 'b', subscriptions: whole([channel]), now: clock.now() });
    apiMock.on(PostToConnectionCommand, { ConnectionId: 'a' }).rejects(new Error('LimitExceededException'));

    await expect(new WebSocketBroadcaster(store, clock, api).publish({ channel, type: 't', data: 1 })).resolves.toBeUndefined();
    expect(apiMock.commandCalls(PostToConnectionCommand)).toHaveLength(2);
    expect((await connectionsOf(store, channel, clock.now())).sort()).toEqual(['a', 'b']);
  });

  it('reaches every connection of a busy channel, 25 posts at a time', async () => {
    const channel = `workspace:${ulid()}`;
    const ids = Array.from({ length: 60 }, (_, i) => `conn-${String(i).padStart(3, '0')}`);
    for (const connectionId of ids) await subscribeConnection(store, { address: '192.0.2.1', connectionId, subscriptions: whole([channel]), now: clock.now() });
    await new WebSocketBroadcaster(store, clock, api).publish({ channel, type: 't', data: 'y' });
    const posted = apiMock.commandCalls(PostToConnectionCommand).map((call) => call.args[0].input.ConnectionId);
    expect(posted.sort()).toEqual(ids);
  });

  it('does nothing without a WebSocket API (no endpoint configured)', async () => {
    const channel = `workspace:${ulid()}`;
    await subscribeConnection(store, { address: '192.0.2.1', connectionId: 'x', subscriptions: whole([channel]), now: clock.now() });
    await new WebSocketBroadcaster(store, clock, undefined).publish({ channel, type: 't', data: 1 });
    expect(apiMock.calls()).toHaveLength(0);
  });

  it('forgetting an unknown connection is a no-op', async () => {
    await expect(forgetConnection(store, 'never-seen')).resolves.toBeUndefined();
  });
});
