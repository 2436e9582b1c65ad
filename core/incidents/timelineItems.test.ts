import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createDynamoClient } from '../store/client.js';
import { INCIDENT_EVENT_TYPES, type IncidentEventItem } from '../store/entities/incidentEvent.js';
import { createStore } from '../store/service.js';
import { claimConfirmInput, incidentEventKey, incidentEventPutInput, queryIncidentEvents } from './timelineItems.js';

// Only builds requests; nothing is sent.
const store = createStore(createDynamoClient({ endpoint: 'http://127.0.0.1:9' }), 'table');

const iso = fc.date({ min: new Date('2020-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
const entry: fc.Arbitrary<IncidentEventItem> = fc.record(
  {
    incidentId: fc.integer({ min: 1, max: 2 ** 40 }),
    eventKey: fc.string({ minLength: 1 }),
    eventId: fc.nat(),
    workspaceId: fc.nat(),
    type: fc.constantFrom(...INCIDENT_EVENT_TYPES),
    message: fc.string(),
    occurredAt: iso,
    actorUserId: fc.nat(),
    actorApiKeyId: fc.nat(),
    actorLink: fc.string(),
    claim: fc.string({ minLength: 1 }),
    createdAt: iso,
  },
  { requiredKeys: ['incidentId', 'eventKey', 'eventId', 'workspaceId', 'type', 'message', 'occurredAt', 'createdAt'] },
);

type Params = {
  Key?: unknown;
  Item?: unknown;
  UpdateExpression?: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
};

describe("the timeline's plain requests match the entity's", () => {
  it('puts the same entry, keys and identity included, only where none is', () => {
    fc.assert(
      fc.property(entry, fc.boolean(), (event, undefinedActor) => {
        // A writer passes the actors it has not as undefined (writeIncidentEvent): neither writes them.
        const written = undefinedActor ? { ...event, actorUserId: undefined } : event;
        const raw = incidentEventPutInput('table', written);
        const electro = store.entities.incidentEvent.create(written).params() as Params;
        expect(unmarshall(raw.Item as Record<string, AttributeValue>)).toEqual(electro.Item);
        expect([raw.ConditionExpression, raw.ExpressionAttributeNames]).toEqual([electro.ConditionExpression, electro.ExpressionAttributeNames]);
      }),
      { numRuns: 300 },
    );
  });

  it("removes a claim on the entity's condition, and nothing else", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (incidentId, eventKey, owner) => {
        const raw = claimConfirmInput('table', incidentId, eventKey, owner);
        const electro = store.entities.incidentEvent
          .patch({ incidentId, eventKey })
          .remove(['claim'])
          .where((attr, op) => op.eq(attr.claim, owner))
          .params() as Required<Params>;
        expect(unmarshall(raw.Key as Record<string, AttributeValue>)).toEqual(electro.Key);
        expect(raw.ConditionExpression).toBe(electro.ConditionExpression);
        const names = raw.ExpressionAttributeNames ?? {};
        for (const name of ['#pk', '#sk', '#claim']) expect(names[name]).toBe(electro.ExpressionAttributeNames[name]);
        expect(unmarshall(raw.ExpressionAttributeValues ?? {})).toEqual({ ':claim0': electro.ExpressionAttributeValues[':claim0'] });
        // The patch also sets the entry's id and identity to what the entry holds; that is all it sets.
        const [, sets = '', removes] = /^SET (.*) REMOVE (.*)$/.exec(electro.UpdateExpression) ?? [];
        expect(sets.split(', ').map((clause) => electro.ExpressionAttributeNames[clause.split(' = ')[0] ?? ''])).toEqual(['incidentId', 'eventKey', '__edb_e__', '__edb_v__']);
        expect([raw.UpdateExpression, electro.ExpressionAttributeNames[removes ?? '']]).toEqual(['REMOVE #claim', 'claim']);
      }),
      { numRuns: 300 },
    );
  });
});

describe("the timeline's plain query", () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext();
  });

  it("asks what the entity's query asks and reads back what it reads", async () => {
    const incidentId = 7_000_001;
    const electroQuery = t.deps.store.entities.incidentEvent.query.byIncident({ incidentId }).params() as Params & { KeyConditionExpression: string };
    expect(electroQuery.KeyConditionExpression).toBe('#pk = :pk and begins_with(#sk1, :sk1)');
    // An item of another entity under the same key prefix: neither reads it.
    const { pk, sk } = incidentEventKey(incidentId, 'foreign');
    await t.deps.store.hot.send(
      new PutItemCommand({ TableName: t.deps.store.table, Item: marshall({ pk, sk, __edb_e__: 'other', __edb_v__: '1', incidentId, eventKey: 'foreign' }) }),
    );
    const events = fc.sample(entry, { numRuns: 60, seed: 7 }).map((event, i) => ({ ...event, incidentId, eventKey: `${event.eventKey}#${i}` }));
    for (const [i, event] of events.entries()) {
      // Half through each writer, with a page boundary or two (the entries carry long messages).
      const written = { ...event, message: event.message.padEnd(20_000, 'm') };
      if (i % 2 === 0) await t.deps.store.entities.incidentEvent.create(written).go();
      else await t.deps.store.hot.send(new PutItemCommand(incidentEventPutInput(t.deps.store.table, written)));
    }
    const theirs = (await t.deps.store.entities.incidentEvent.query.byIncident({ incidentId }).go({ pages: 'all' })).data;
    const ours = await queryIncidentEvents(t.deps.store, incidentId);
    expect(theirs).toHaveLength(events.length);
    expect(ours).toEqual(theirs);
  });
});
