import { ApiGatewayManagementApiClient, GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { mockClient } from 'aws-sdk-client-mock';
import { ulid } from 'ulid';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ManualClock } from '../../clock.js';
import { ALL_TOPICS } from '../../ports/index.js';
import { createDynamoClient, ensureTable } from '../../store/client.js';
import { createStore, type Store } from '../../store/service.js';
import { connectionsOf, forgetConnection } from './connectionRows.js';
import { WebSocketPublisher } from './publisher.js';
import { subscribeConnection } from './streamConnections.js';

// The broadcast's plain requests (no ElectroDB, for the ping Lambda) against rows the entity wrote.
describe('connectionRows: the registry read and cleaned with plain requests', () => {
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  let store: Store;
  beforeAll(async () => {
    const client = createDynamoClient({ endpoint: inject('dynamoEndpoint') });
    const table = `t_${ulid()}`;
    await ensureTable(client, table);
    store = createStore(client, table);
  });

  it('finds mixed-case connection ids (as API Gateway makes them) on a channel and a topic, and forgets every row of one', async () => {
    const channel = `workspace:${ulid()}`;
    // API Gateway ids are mixed-case; the entity lower-cases its keys but keeps the attribute.
    await subscribeConnection(store, {
      address: '192.0.2.1',
      connectionId: 'L0SM9cOFvHcCIhw=',
      subscriptions: [
        { channel, topic: ALL_TOPICS },
        { channel: 'other', topic: ALL_TOPICS },
      ],
      userId: 7,
      now: clock.now(),
    });
    await subscribeConnection(store, { address: '192.0.2.1', connectionId: 'Xy1=', subscriptions: [{ channel, topic: 'check:42' }], now: clock.now() });
    expect((await connectionsOf(store, channel, clock.now(), 'check:42')).sort()).toEqual(['L0SM9cOFvHcCIhw=', 'Xy1=']);
    expect(await connectionsOf(store, channel, clock.now(), 'check:43')).toEqual(['L0SM9cOFvHcCIhw=']);
    expect(await connectionsOf(store, channel, clock.now())).toEqual(['L0SM9cOFvHcCIhw=']);

    await forgetConnection(store, 'L0SM9cOFvHcCIhw=');
    expect(await connectionsOf(store, channel, clock.now(), 'check:42')).toEqual(['Xy1=']);
    expect(await connectionsOf(store, 'other', clock.now())).toEqual([]);
    const left = await store.entities.streamConnection.query.byConnection({ connectionId: 'L0SM9cOFvHcCIhw=' }).go();
    expect(left.data).toEqual([]);
  });

  it('skips expired rows', async () => {
    const channel = `workspace:${ulid()}`;
    await subscribeConnection(store, { address: '192.0.2.1', connectionId: 'old', subscriptions: [{ channel, topic: ALL_TOPICS }], now: new Date('2026-03-01T09:00:00.000Z') });
    await subscribeConnection(store, { address: '192.0.2.1', connectionId: 'new', subscriptions: [{ channel, topic: ALL_TOPICS }], now: clock.now() });
    expect(await connectionsOf(store, channel, clock.now())).toEqual(['new']);
  });

  it("the ping Lambda's publisher posts to the listeners and forgets a Gone one", async () => {
    const api = new ApiGatewayManagementApiClient({ region: 'us-east-1', endpoint: 'https://ws.example.com/test' });
    const apiMock = mockClient(api);
    apiMock.on(PostToConnectionCommand, { ConnectionId: 'Gone1' }).rejects(new GoneException({ message: 'gone', $metadata: {} }));
    apiMock.on(PostToConnectionCommand, { ConnectionId: 'Live1' }).resolves({});
    const channel = `workspace:${ulid()}`;
    await subscribeConnection(store, { address: '192.0.2.1', connectionId: 'Gone1', subscriptions: [{ channel, topic: ALL_TOPICS }], now: clock.now() });
    await subscribeConnection(store, { address: '192.0.2.1', connectionId: 'Live1', subscriptions: [{ channel, topic: 'check:1' }], now: clock.now() });
    await new WebSocketPublisher({ hot: store.hot, table: store.table }, clock, api).publish({ channel, topic: 'check:1', type: 'signal', data: { n: 1 } });
    expect(
      apiMock
        .commandCalls(PostToConnectionCommand)
        .map((call) => call.args[0].input.ConnectionId)
        .sort(),
    ).toEqual(['Gone1', 'Live1']);
    expect(await connectionsOf(store, channel, clock.now(), 'check:1')).toEqual(['Live1']);
    apiMock.restore();
  });
});
