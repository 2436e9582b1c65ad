import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolvedExpressions } from '../../../test/support/plainRequests.js';
import { createDynamoClient } from '../../store/client.js';
import { createStore } from '../../store/service.js';
import { storedItemOf } from '../../store/storedItems.js';
import { cursorKey, cursorMoveInput, cursorPutInput, dayAddInput } from './uptimeItems.js';

// Only builds requests; nothing is sent.
const store = createStore(createDynamoClient({ endpoint: 'http://127.0.0.1:9' }), 'table');
const { uptimeCursor, uptimeRollup } = store.entities;

const checkId = fc.integer({ min: 1, max: 2 ** 40 });
const iso = fc.date({ min: new Date('2020-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
const state = fc.constantFrom('UP', 'DOWN', 'UNOBSERVED' as const);
const seconds = fc.nat(86_400);

describe("the uptime rollup's requests as plain ones", () => {
  it("puts the first cursor as the entity's create does, and reads it back as its get does", () => {
    fc.assert(
      fc.property(checkId, state, iso, (id, to, since) => {
        const raw = cursorPutInput('table', id, to, since);
        const electro = uptimeCursor.create({ checkId: id, state: to, since }).params() as { Item: Record<string, unknown> };
        const item = unmarshall(raw.Item as Record<string, AttributeValue>);
        expect(item).toEqual(electro.Item);
        expect(resolvedExpressions(raw, true)).toEqual(resolvedExpressions(electro, false));
        expect(cursorKey(id)).toEqual((uptimeCursor.get({ checkId: id }).params() as { Key: unknown }).Key);
        expect(storedItemOf(uptimeCursor, item)).toEqual(uptimeCursor.parse({ Item: item }, { ignoreOwnership: false }).data);
      }),
    );
  });

  it("moves the cursor as the entity's patch does, only from where it was read", () => {
    fc.assert(
      fc.property(checkId, iso, state, iso, (id, was, to, since) => {
        const raw = cursorMoveInput('table', id, was, to, since);
        const electro = uptimeCursor
          .patch({ checkId: id })
          .set({ state: to, since })
          .where((attr, op) => op.eq(attr.since, was))
          .params() as { Key: unknown };
        expect(unmarshall(raw.Key as Record<string, AttributeValue>)).toEqual(electro.Key);
        expect(resolvedExpressions(raw, true)).toEqual(resolvedExpressions(electro, false));
      }),
    );
  });

  it("adds a day's share as the entity's update does, unless the interval is in", () => {
    fc.assert(
      fc.property(checkId, iso, iso, seconds, seconds, seconds, seconds, fc.nat(), (id, start, day, observed, down, maintenance, maintenanceDown, expiresAt) => {
        const delta = { date: day.slice(0, 10), observedSeconds: observed, downSeconds: down, maintenanceSeconds: maintenance, maintenanceDownSeconds: maintenanceDown };
        const raw = dayAddInput('table', id, start, delta, expiresAt);
        const electro = uptimeRollup
          .update({ checkId: id, date: delta.date })
          .add({ observedSeconds: observed, downSeconds: down, maintenanceSeconds: maintenance, maintenanceDownSeconds: maintenanceDown, intervals: [start] })
          .set({ expiresAt })
          .where((attr, op) => op.notContains(attr.intervals, start))
          .params() as { Key: unknown };
        expect(unmarshall(raw.Key as Record<string, AttributeValue>)).toEqual(electro.Key);
        expect(resolvedExpressions(raw, true)).toEqual(resolvedExpressions(electro, false));
        // The interval's start is added as a string set, as ElectroDB adds to a set attribute.
        expect(raw.ExpressionAttributeValues?.[':intervals']).toEqual({ SS: [start] });
      }),
    );
  });
});
