import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { outboxWrite } from '../outbox/owe.js';
import { createDynamoClient } from '../store/client.js';
import { dueFields, ESCALATION_DUE_ATTRIBUTES } from '../store/escalationDue.js';
import { createStore } from '../store/service.js';
import { incidentUpdateInput } from './incidentUpdate.js';
import type { IncidentWrite } from './write.js';

// Only builds requests; nothing is sent.
const store = createStore(createDynamoClient({ endpoint: 'http://127.0.0.1:9' }), 'table');

/** An update expression as `field -> value` for SET (`{ append }` for a list_append) and the fields REMOVEd. */
function effect(expression: string, names: Record<string, string>, values: Record<string, unknown>) {
  const [, setPart = '', removePart = ''] = /^(?:SET (.*?))?(?: ?REMOVE (.*))?$/.exec(expression) ?? [];
  const clauses: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of setPart) {
    if (char === ',' && depth === 0) {
      clauses.push(current.trim());
      current = '';
      continue;
    }
    if (char === '(') depth++;
    if (char === ')') depth--;
    current += char;
  }
  if (current.trim()) clauses.push(current.trim());
  const set: Record<string, unknown> = {};
  for (const clause of clauses) {
    const [name = '', value = ''] = clause.split(' = ');
    const field = names[name] ?? name;
    const appended = /^list_append\(if_not_exists\([^,]+, :[^)]+\), (:[A-Za-z0-9_]+)\)$/.exec(value)?.[1];
    set[field] = appended ? { append: values[appended] } : values[value];
  }
  const removed = removePart ? removePart.split(', ').map((name) => names[name.trim()] ?? name) : [];
  return { set, removed: [...removed].sort() };
}

const iso = fc.date({ min: new Date('2020-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
const write = fc.record(
  {
    title: fc.string({ minLength: 1 }),
    state: fc.constantFrom('ACTIVE', 'MONITORING', 'RESOLVED' as const),
    severity: fc.constantFrom('P1', 'P2', 'P3', 'P4' as const),
    updatedAt: iso,
    resolvedAt: iso,
    acknowledgedAt: iso,
    acknowledgedBy: fc.nat(),
    escalationEpoch: fc.nat(5),
    escalationCycle: fc.nat(5),
    escalationStep: fc.nat(5),
    escalationAnchor: iso,
    escalationHeld: fc.boolean(),
    escalationAfterAck: fc.boolean(),
  },
  { requiredKeys: [] },
);

describe('an incident transition written as a plain request', () => {
  it('sets and removes what the ElectroDB patch does, the escalation-due keys and the outbox included, on the revision read', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.nat(1000),
        write,
        fc.option(iso, { nil: undefined }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
        (incidentId, revision, fields, due, undue, unack, owes, lastId) => {
          // A write that owes messages takes no clear (core/incidents/repository.ts applyIncidentInput).
          const clears = owes ? undefined : lastId;
          const set: IncidentWrite['set'] = { ...fields, revision: revision + 1, ...(due ? dueFields(incidentId, new Date(due)) : {}) };
          // As incidentWrite (core/incidents/write.ts) makes them: nothing both set and removed.
          const remove: IncidentWrite['remove'] = [
            ...(unack ? (['acknowledgedAt', 'acknowledgedBy', 'acknowledgedByKeyId'] as const) : []),
            ...(undue && !due ? ESCALATION_DUE_ATTRIBUTES : []),
          ].filter((field) => !(field in set));
          const owed = owes ? outboxWrite([{ queue: 'alerts', body: { type: 'incident.opened', incidentId } }], new Date('2026-03-01T12:00:00.000Z')) : undefined;

          const raw = incidentUpdateInput('table', incidentId, { set, remove }, owed, revision, clears);
          let patch = store.entities.incident.patch({ incidentId }).set({ ...set, ...owed?.set });
          if (owed) patch = patch.append({ outbox: owed.entries });
          // The relay's clear folded in: the outbox and its index fields removed, on the last entry's id.
          const removing = [...remove, ...(clears !== undefined ? (['outbox', 'outboxId', 'outboxDue', 'outboxDueAt'] as const) : [])];
          if (removing.length > 0) patch = patch.remove(removing);
          const electro = patch
            .where((attr, op) => (clears !== undefined ? `${op.eq(attr.revision, revision)} AND ${op.eq(attr.outboxId, clears)}` : op.eq(attr.revision, revision)))
            .params({ response: 'all_new' }) as {
            Key: unknown;
            UpdateExpression: string;
            ConditionExpression: string;
            ExpressionAttributeNames: Record<string, string>;
            ExpressionAttributeValues: Record<string, unknown>;
          };

          expect(unmarshall(raw.Key as Record<string, AttributeValue>)).toEqual(electro.Key);
          const values = unmarshall(raw.ExpressionAttributeValues ?? {});
          const ours = effect(raw.UpdateExpression ?? '', raw.ExpressionAttributeNames ?? {}, values);
          const theirs = effect(electro.UpdateExpression, electro.ExpressionAttributeNames, electro.ExpressionAttributeValues);
          // ElectroDB also sets the item's identity (its id and entity name and version) to what the existing item holds.
          for (const identity of ['incidentId', '__edb_e__', '__edb_v__']) delete theirs.set[identity];
          expect(ours).toEqual(theirs);
          // Both write only an incident that exists, and only on the revision read.
          expect(raw.ConditionExpression).toBe(`attribute_exists(#pk) AND #revision = :was${clears !== undefined ? ' AND #oid = :last' : ''}`);
          expect([raw.ExpressionAttributeNames?.['#revision'], values[':was']]).toEqual(['revision', revision]);
          if (clears !== undefined) {
            expect([raw.ExpressionAttributeNames?.['#oid'], values[':last']]).toEqual(['outboxId', clears]);
            expect(electro.ConditionExpression).toMatch(/^attribute_exists\(#pk\) AND attribute_exists\(#sk\) AND #revision = :revision0 AND #outboxId = :outboxId0$/);
            expect([electro.ExpressionAttributeNames['#outboxId'], electro.ExpressionAttributeValues[':outboxId0']]).toEqual(['outboxId', clears]);
          } else expect(electro.ConditionExpression).toMatch(/^attribute_exists\(#pk\) AND attribute_exists\(#sk\) AND #revision = :revision0$/);
        },
      ),
      { numRuns: 300 },
    );
  });
});
