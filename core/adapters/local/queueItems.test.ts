import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDynamoClient } from '../../store/client.js';
import { resolvedExpressions } from '../../../test/support/plainRequests.js';
import type { QueueMessageItem } from '../../store/entities/queueMessage.js';
import { createStore } from '../../store/service.js';
import { deleteRequest, leaseInput, messageKey, messageOf, putRequest, storedMessage, visibleBeforeInput } from './queueItems.js';

// Only builds requests; nothing is sent.
const store = createStore(createDynamoClient({ endpoint: 'http://127.0.0.1:9' }), 'table');
const { queueMessage } = store.entities;

const iso = fc.date({ min: new Date('2020-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
const lane = fc.constantFrom('incidents', 'alerts', 'incidents-dlq', 'alerts-dlq');
const messageId = fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/);
const message: fc.Arbitrary<QueueMessageItem> = fc.record({
  lane,
  messageId,
  body: fc.json(),
  receiveCount: fc.nat(10),
  visibleAt: iso,
  leased: fc.boolean(),
  sentAt: iso,
});

type Params = {
  Key?: unknown;
  UpdateExpression?: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
};

/** An update expression's clauses, placeholders resolved, by action, each action's clauses sorted. */
function clauses(update: string | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [, action = '', body = ''] of (update ?? '').matchAll(/(SET|ADD|REMOVE|DELETE) (.*?)(?= (?:SET|ADD|REMOVE|DELETE) |$)/g)) out[action] = body.split(', ').sort();
  return out;
}

describe("the local queue's plain requests match what the queueMessage entity writes", () => {
  it('puts the same item, alone or in a batch', () => {
    fc.assert(
      fc.property(message, (item) => {
        expect(storedMessage(item)).toEqual(queueMessage.put(item).params<{ Item: unknown }>().Item);
        const [batch] = queueMessage.put([item]).params<{ RequestItems: Record<string, { PutRequest: { Item: unknown } }[]> }[]>();
        expect(unmarshall(putRequest(item).PutRequest?.Item ?? {})).toEqual(batch?.RequestItems.table?.[0]?.PutRequest.Item);
      }),
    );
  });

  it('deletes by the same key', () => {
    fc.assert(
      fc.property(lane, messageId, (l, id) => {
        const [batch] = queueMessage.delete([{ lane: l, messageId: id }]).params<{ RequestItems: Record<string, { DeleteRequest: { Key: unknown } }[]> }[]>();
        expect(unmarshall(deleteRequest({ lane: l, messageId: id }).DeleteRequest?.Key ?? {})).toEqual(batch?.RequestItems.table?.[0]?.DeleteRequest.Key);
        expect(messageKey(l, id)).toEqual(queueMessage.get({ lane: l, messageId: id }).params<{ Key: unknown }>().Key);
      }),
    );
  });

  it('queries the same range of the visible index, up to the same number of messages', () => {
    fc.assert(
      fc.property(lane, iso, fc.integer({ min: 1, max: 25 }), (l, before, limit) => {
        const raw = visibleBeforeInput('table', l, before, limit);
        const electro = queueMessage.query
          .visible({ lane: l })
          .lt({ visibleAt: before })
          .params<Params & { IndexName: string; KeyConditionExpression: string; Limit: number }>({ limit });
        expect({ ...raw, ExpressionAttributeValues: unmarshall(raw.ExpressionAttributeValues ?? {}) }).toEqual({ ...electro, TableName: 'table' });
      }),
    );
  });

  it('leases as the patch does: the same key, fields and index key, the count raised, on the count read', () => {
    fc.assert(
      fc.property(lane, messageId, fc.nat(10), iso, (l, id, count, leaseEnd) => {
        const raw = leaseInput('table', l, id, count, leaseEnd);
        const ours = resolvedExpressions(raw, true);
        const electro = queueMessage
          .patch({ lane: l, messageId: id })
          .set({ visibleAt: leaseEnd, leased: true })
          .add({ receiveCount: 1 })
          .where((attr, op) => op.eq(attr.receiveCount, count))
          .params<Params & { ReturnValues: string }>({ response: 'all_new' });
        expect(unmarshall(raw.Key ?? {})).toEqual(electro.Key);
        const resolved = resolvedExpressions(electro, false);
        const theirs = clauses(resolved.update);
        // ElectroDB also sets the item's identity (its key fields, entity name and version) to what the existing item holds.
        theirs.SET = (theirs.SET ?? []).filter((clause) => !/^(lane|messageId|__edb_e__|__edb_v__) = /.test(clause));
        expect(clauses(ours.update)).toEqual(theirs);
        expect(ours.condition).toBe(resolved.condition);
        expect(raw.ReturnValues).toBe(electro.ReturnValues);
      }),
    );
  });

  it('reads a stored message back as the entity does, and leaves out items of other entities', () => {
    fc.assert(
      fc.property(message, (item) => {
        const stored = marshall(storedMessage(item)) as Record<string, AttributeValue>;
        expect(messageOf(store, stored)).toEqual(queueMessage.parse({ Item: unmarshall(stored) }).data);
        expect(messageOf(store, { ...stored, __edb_e__: { S: 'signal' } })).toBeUndefined();
      }),
    );
  });
});
