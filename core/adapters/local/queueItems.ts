import type { AttributeValue, QueryCommandInput, UpdateItemCommandInput, WriteRequest } from '@aws-sdk/client-dynamodb';
import type { QueueMessageItem } from '../../store/entities/queueMessage.js';
import { marshallItem, unmarshallItem } from '../../store/flatItems.js';
import type { Store } from '../../store/service.js';
import { storedItemOf } from '../../store/storedItems.js';

/*
 * The local queue's hot requests (a publish, a receive's query and lease, an acknowledgement) as
 * plain requests for the store's plain client, in the form the queueMessage entity writes them
 * (queueItems.test.ts holds the two together): the same keys, the same item, the same index keys,
 * the same condition. In a mass outage the queue moves several messages for every flipping check,
 * and building each through ElectroDB's chain, then marshalling it through the document client,
 * cost the one busy thread about as much CPU as the queue store's own work on it. The rarer
 * writes (a retry's delay, a dead letter, the leases reclaimed at boot) stay on the entity.
 */

/** A lane's partition key, in the table and in the `visible` index alike. */
const lanePartition = (lane: string): string => `$vigil#lane_${lane.toLowerCase()}`;

/** A message's table key (the entity's `byId` index). */
export const messageKey = (lane: string, messageId: string): { pk: string; sk: string } => ({
  pk: lanePartition(lane),
  sk: `$queuemessage_1#messageid_${messageId.toLowerCase()}`,
});

/** The sort key of the entity's `visible` index; a prefix of it without `messageId` bounds a range. */
const visibleSortKey = (visibleAt: string, messageId?: string): string =>
  `$queuemessage_1#visibleat_${visibleAt.toLowerCase()}${messageId === undefined ? '' : `#messageid_${messageId.toLowerCase()}`}`;

/** A message as the table stores it (what the entity's put writes). */
export function storedMessage(item: QueueMessageItem): Record<string, unknown> {
  const key = messageKey(item.lane, item.messageId);
  return {
    lane: item.lane,
    messageId: item.messageId,
    body: item.body,
    receiveCount: item.receiveCount,
    visibleAt: item.visibleAt,
    leased: item.leased,
    sentAt: item.sentAt,
    pk: key.pk,
    sk: key.sk,
    gsi1pk: key.pk,
    gsi1sk: visibleSortKey(item.visibleAt, item.messageId),
    __edb_e__: 'queueMessage',
    __edb_v__: '1',
  };
}

export const putRequest = (item: QueueMessageItem): WriteRequest => ({ PutRequest: { Item: marshallItem(storedMessage(item)) } });

export const deleteRequest = (key: Pick<QueueMessageItem, 'lane' | 'messageId'>): WriteRequest => ({
  DeleteRequest: { Key: marshallItem(messageKey(key.lane, key.messageId)) },
});

/** Which stored item a write request (as the store hands one back unprocessed) is about. */
export function requestId(request: WriteRequest): string {
  const key = request.PutRequest?.Item ?? request.DeleteRequest?.Key ?? {};
  return `${key.pk?.S ?? ''}\u0000${key.sk?.S ?? ''}`;
}

/** `requestId` of the request that writes `item`. */
export const itemId = (item: Pick<QueueMessageItem, 'lane' | 'messageId'>): string => {
  const key = messageKey(item.lane, item.messageId);
  return `${key.pk}\u0000${key.sk}`;
};

/**
 * Up to `limit` messages of `lane` visible before `before`, oldest first (the entity's
 * `query.visible({ lane }).lt({ visibleAt: before })`).
 */
export function visibleBeforeInput(table: string, lane: string, before: string, limit: number): QueryCommandInput {
  return {
    TableName: table,
    IndexName: 'gsi1',
    KeyConditionExpression: '#pk = :pk and #sk1 < :sk1',
    ExpressionAttributeNames: { '#pk': 'gsi1pk', '#sk1': 'gsi1sk' },
    ExpressionAttributeValues: marshallItem({ ':pk': lanePartition(lane), ':sk1': visibleSortKey(before) }),
    Limit: limit,
  };
}

/**
 * A lease of one message: visible again only at `leaseEnd`, its receive count raised, on the
 * receive count read (the entity's patch of `visibleAt` and `leased`, with `add({ receiveCount: 1 })`,
 * where the count is still `receiveCount`), answering the whole message as it now stands.
 */
export function leaseInput(table: string, lane: string, messageId: string, receiveCount: number, leaseEnd: string): UpdateItemCommandInput {
  return {
    TableName: table,
    Key: marshallItem(messageKey(lane, messageId)),
    UpdateExpression: 'SET #visibleAt = :visibleAt, #leased = :leased, #gsi1sk = :gsi1sk ADD #receiveCount :one',
    ConditionExpression: 'attribute_exists(#pk) AND attribute_exists(#sk) AND #receiveCount = :receiveCount',
    ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#visibleAt': 'visibleAt', '#leased': 'leased', '#gsi1sk': 'gsi1sk', '#receiveCount': 'receiveCount' },
    ExpressionAttributeValues: marshallItem({
      ':visibleAt': leaseEnd,
      ':leased': true,
      ':gsi1sk': visibleSortKey(leaseEnd, messageId),
      ':one': 1,
      ':receiveCount': receiveCount,
    }),
    ReturnValues: 'ALL_NEW',
  };
}

/** A stored item as the entity reads it back; undefined for an item of another entity (as ElectroDB leaves those out). */
export const messageOf = (store: Pick<Store, 'entities'>, stored: Record<string, AttributeValue>): QueueMessageItem | undefined =>
  storedItemOf<QueueMessageItem>(store.entities.queueMessage, unmarshallItem(stored));
