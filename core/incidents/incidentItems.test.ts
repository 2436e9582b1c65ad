import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolvedExpressions } from '../../test/support/plainRequests.js';
import { outboxWrite } from '../outbox/owe.js';
import { createDynamoClient } from '../store/client.js';
import type { IncidentItem } from '../store/entities/incident.js';
import { dueFields } from '../store/escalationDue.js';
import { createStore } from '../store/service.js';
import { storedItemOf } from '../store/storedItems.js';
import { episodeClaimInput, episodeReleaseInput, episodeTableKey, incidentPutInput, storedIncident } from './incidentItems.js';
import { incidentKey } from './incidentUpdate.js';

// Only builds requests; nothing is sent.
const store = createStore(createDynamoClient({ endpoint: 'http://127.0.0.1:9' }), 'table');
const { incident, incidentEpisode } = store.entities;
/** ElectroDB's parse, as its get formats an answer: an item of another entity is none. */
const GET = { ignoreOwnership: false } as const;

const iso = fc.date({ min: new Date('2020-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
const id = fc.integer({ min: 1, max: 2 ** 40 });
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

/** An incident as insertIncident makes one (core/incidents/repository.ts), optional fields absent or undefined. */
const opened: fc.Arbitrary<IncidentItem> = fc
  .record({
    incidentId: id,
    publicId: fc.stringMatching(/^[0-9a-z]{26}$/),
    workspaceId: id,
    projectId: maybe(id),
    checkId: maybe(id),
    dependencyId: maybe(id),
    dependencyName: maybe(fc.string({ minLength: 1 })),
    integrationId: maybe(id),
    title: fc.string({ minLength: 1 }),
    summary: maybe(fc.string()),
    reason: fc.constantFrom('SERVICE_DOWN', 'DEPENDENCY_DOWN' as const),
    declared: fc.boolean(),
    state: fc.constant('ACTIVE' as const),
    severity: fc.constantFrom('P1', 'P2', 'P3', 'P4' as const),
    startedAt: iso,
    revision: fc.constant(1),
    escalationEpoch: fc.nat(3),
    escalationCycle: fc.nat(3),
    escalationStep: fc.nat(3),
    escalationAnchor: iso,
    due: maybe(iso),
    owes: fc.nat(3),
    createdAt: iso,
  })
  .map(({ due, owes, createdAt, ...fields }) => {
    const owed =
      owes > 0
        ? outboxWrite(
            Array.from({ length: owes }, (_, i) => ({ queue: 'alerts' as const, body: { n: i } })),
            new Date(createdAt),
          )
        : undefined;
    return {
      ...fields,
      ...(due ? dueFields(fields.incidentId, new Date(due)) : {}),
      ...(owed ? { outbox: owed.entries, ...owed.set } : {}),
      createdAt,
      updatedAt: createdAt,
    };
  });

describe("an opening's incident written as a plain request", () => {
  it("puts the item the entity's create puts, every index key and the identity included, on the same condition", () => {
    fc.assert(
      fc.property(opened, (item) => {
        const raw = incidentPutInput('table', storedIncident(item));
        const electro = incident.create(item).params() as { Item: Record<string, unknown>; ConditionExpression: string; ExpressionAttributeNames: Record<string, string> };
        expect(unmarshall(raw.Item as Record<string, AttributeValue>)).toEqual(electro.Item);
        expect(resolvedExpressions(raw, true)).toEqual(resolvedExpressions(electro, false));
        expect(raw.TableName).toBe('table');
      }),
      { numRuns: 300 },
    );
  });

  it("reads an item back as the entity's get does, and another entity's item not at all", () => {
    fc.assert(
      fc.property(opened, (item) => {
        const stored = storedIncident(item);
        expect(storedItemOf(incident, stored)).toEqual(incident.parse({ Item: stored }, GET).data);
        expect(storedItemOf(incident, { ...stored, __edb_e__: 'check' })).toBeUndefined();
        expect(incident.parse({ Item: { ...stored, __edb_e__: 'check' } }, GET).data).toBeNull();
      }),
      { numRuns: 100 },
    );
  });

  it('gets the key the entity gets', () => {
    fc.assert(
      fc.property(id, (incidentId) => {
        expect(incidentKey(incidentId)).toEqual((incident.get({ incidentId }).params() as { Key: unknown }).Key);
      }),
    );
  });
});

const episode = fc.record({
  checkId: id,
  episodeKey: fc.oneof(
    fc.constant('service'),
    id.map((n) => `dep#${n}`),
  ),
});

describe("an episode's get and claim as plain requests", () => {
  it("gets the entity's key and reads the item back as its get does", () => {
    fc.assert(
      fc.property(episode, maybe(id), maybe(id), maybe(iso), maybe(iso), (ref, workspaceId, openIncidentId, closedAt, awaitingRecoverySince) => {
        const key = episodeTableKey(ref);
        expect(key).toEqual((incidentEpisode.get(ref).params() as { Key: unknown }).Key);
        const stored = { ...ref, workspaceId, openIncidentId, closedAt, awaitingRecoverySince, ...key, __edb_e__: 'incidentEpisode', __edb_v__: '1' };
        for (const [name, value] of Object.entries(stored)) if (value === undefined) delete stored[name as keyof typeof stored];
        expect(storedItemOf(incidentEpisode, stored)).toEqual(incidentEpisode.parse({ Item: stored }, GET).data);
      }),
    );
  });

  it("claims as the entity's update does: the same attributes, identity and condition", () => {
    fc.assert(
      fc.property(episode, id, id, iso, (ref, incidentId, workspaceId, at) => {
        const raw = episodeClaimInput('table', ref, incidentId, workspaceId, at);
        const electro = incidentEpisode
          .update(ref)
          .set({ openIncidentId: incidentId, workspaceId })
          .where(
            (attr, op) =>
              `${op.notExists(attr.openIncidentId)} AND ${op.notExists(attr.awaitingRecoverySince)} AND (${op.notExists(attr.closedAt)} OR ${op.lt(attr.closedAt, at)})`,
          )
          .params() as { Key: unknown };
        expect(unmarshall(raw.Key as Record<string, AttributeValue>)).toEqual(electro.Key);
        expect(resolvedExpressions(raw, true)).toEqual(resolvedExpressions(electro, false));
      }),
    );
  });

  it("releases as the entity's update does, awaiting recovery or not, only while it names the incident", () => {
    fc.assert(
      fc.property(episode, id, iso, maybe(iso), (ref, incidentId, closedAt, heldSince) => {
        const raw = episodeReleaseInput('table', ref, incidentId, closedAt, heldSince);
        const electro = incidentEpisode
          .update(ref)
          .set(heldSince !== undefined ? { closedAt, awaitingRecoverySince: heldSince } : { closedAt })
          .remove(['openIncidentId'])
          .where((attr, op) => op.eq(attr.openIncidentId, incidentId))
          .params() as { Key: unknown };
        expect(unmarshall(raw.Key as Record<string, AttributeValue>)).toEqual(electro.Key);
        expect(resolvedExpressions(raw, true)).toEqual(resolvedExpressions(electro, false));
      }),
    );
  });
});
