import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDynamoClient } from '../store/client.js';
import { createStore } from '../store/service.js';
import type { SignalItem } from '../store/entities/signal.js';
import { outboxFields, outboxWrite } from '../outbox/owe.js';
import { checkDueKeys, checkUpdateInput, compactPlaceholders, signalKey, storedSignal } from './rawItems.js';

// Only builds requests; nothing is sent.
const store = createStore(createDynamoClient({ endpoint: 'http://127.0.0.1:9' }), 'table');
const token = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);
const iso = fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
const noGuard = { expression: 'attribute_exists(#pk)', names: { '#pk': 'pk' }, values: {} };

describe('raw ping writes match what ElectroDB writes', () => {
  it('addresses the check item and its due-index keys the same way', () => {
    fc.assert(
      fc.property(token, iso, fc.constantFrom('0', '1', '12'), (t, dueAt, dueShard) => {
        const raw = checkUpdateInput('table', t, { set: { dueAt, dueShard, status: 'OK' }, remove: [] }, noGuard, {});
        const electro = store.entities.check.patch({ token: t }).set({ dueAt, dueShard, status: 'OK' }).params() as {
          Key: unknown;
          ExpressionAttributeValues: Record<string, unknown>;
        };
        expect(raw.Key).toEqual(electro.Key);
        expect(raw.ExpressionAttributeValues?.[':gsi2pk']).toBe(electro.ExpressionAttributeValues[':gsi2pk_u0']);
        expect(raw.ExpressionAttributeValues?.[':gsi2sk']).toBe(electro.ExpressionAttributeValues[':gsi2sk_u0']);
        expect(checkDueKeys(dueShard, dueAt)).toEqual({ gsi2pk: electro.ExpressionAttributeValues[':gsi2pk_u0'], gsi2sk: electro.ExpressionAttributeValues[':gsi2sk_u0'] });
      }),
    );
  });

  it("a steady ping's update moves the check's own due entry in the same write (no wake entry elsewhere)", () => {
    const raw = checkUpdateInput('table', 'abc', { set: { dueAt: '2026-01-01T00:00:00.000Z', dueShard: '0', status: 'OK' }, remove: [] }, noGuard, {}, 'UPDATED_OLD', {});
    expect(Object.values(raw.ExpressionAttributeNames ?? {})).toEqual(expect.arrayContaining(['dueAt', 'gsi2pk', 'gsi2sk']));
    expect(raw.ExpressionAttributeValues?.[':gsi2sk']).toBe(checkDueKeys('0', '2026-01-01T00:00:00.000Z').gsi2sk);
  });

  it('leaves the due index when dueAt is removed', () => {
    const raw = checkUpdateInput('table', 'abc', { set: { status: 'DOWN' }, remove: ['dueAt', 'dueShard'] }, noGuard, {});
    expect(raw.UpdateExpression).toBe('SET #status = :status REMOVE #dueAt, #dueShard, #gsi2pk, #gsi2sk');
  });

  it("records a move's outbox in the fields ElectroDB writes, appended to what is there", () => {
    const owed = outboxWrite([{ queue: 'incidents', body: { type: 'x' } }], new Date('2026-03-01T12:00:00.000Z'));
    const fields = outboxFields(owed);
    const raw = checkUpdateInput('table', 'abc', { set: { status: 'DOWN' }, remove: [] }, noGuard, {}, 'UPDATED_OLD', fields);
    const electro = store.entities.check.patch({ token: 'abc' }).append({ outbox: owed.entries }).set(owed.set).params() as {
      ExpressionAttributeNames: Record<string, string>;
      ExpressionAttributeValues: Record<string, unknown>;
    };
    const written = (names: Record<string, string> | undefined) => new Set(Object.values(names ?? {}));
    for (const field of ['outbox', 'outboxId', 'gsi4pk', 'gsi4sk']) {
      expect(written(electro.ExpressionAttributeNames).has(field)).toBe(true);
      expect(written(raw.ExpressionAttributeNames).has(field)).toBe(true);
    }
    expect(Object.values(raw.ExpressionAttributeValues ?? {})).toEqual(expect.arrayContaining([owed.set.outboxId, owed.set.outboxDue, owed.set.outboxDueAt, owed.entries]));
    expect(raw.UpdateExpression).toContain('#outbox = list_append(if_not_exists(#outbox, :outbox_none), :outbox_append)');
  });

  it('puts the same signal item', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), iso, fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/), (checkId, receivedAt, signalId) => {
        const item: SignalItem = { checkId, signalId, receivedAt, workspaceId: 3, type: 'SUCCESS', source: 'PING', payload: '{"a":1}', payloadIsJson: true, expiresAt: 1 };
        const electro = store.entities.signal.put(item).params() as { Item: unknown };
        expect(storedSignal(item)).toEqual(electro.Item);
      }),
    );
  });

  it('puts the same signal item with its wake entry, and the key the same way', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 40 }),
        iso,
        iso,
        fc.constantFrom('0', '3'),
        fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
        (checkId, receivedAt, wakeAt, wakeShard, signalId) => {
          const item: SignalItem = { checkId, signalId, receivedAt, workspaceId: 3, type: 'SUCCESS', source: 'PING', expiresAt: 1, wakeAt, wakeShard };
          const electro = store.entities.signal.put(item).params() as { Item: Record<string, unknown> };
          expect(storedSignal(item)).toEqual(electro.Item);
          expect(electro.Item.gsi2sk).toBeDefined();
          expect(signalKey(checkId, receivedAt, signalId)).toEqual(store.entities.signal.get({ checkId, receivedAt, signalId }).params<{ Key: unknown }>().Key);
        },
      ),
    );
  });

  it('puts the same START signal with its missed-run entry', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), iso, iso, fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/), (checkId, receivedAt, runDueAt, signalId) => {
        const item: SignalItem = { checkId, signalId, receivedAt, workspaceId: 3, type: 'START', source: 'PING', expiresAt: 1, runDueAt, runDueShard: '0' };
        const electro = store.entities.signal.put(item).params() as { Item: Record<string, unknown> };
        expect(storedSignal(item)).toEqual(electro.Item);
        expect(electro.Item.gsi5sk).toBeDefined();
      }),
    );
  });
});

describe('compactPlaceholders', () => {
  const expand = (expression: string | undefined, names: Record<string, string>, values: Record<string, unknown>) =>
    expression?.replace(/[#:][A-Za-z0-9_]+/g, (p) => (p.startsWith('#') ? `<${names[p]}>` : `<${JSON.stringify(values[p])}>`));

  it('renames every placeholder to a short one and keeps what each expression means', () => {
    const input = checkUpdateInput(
      'table',
      'abc',
      { set: { lastPingAt: 'a', status: 'OK', dueAt: 'b', dueShard: '0' }, remove: ['startedAt'] },
      { expression: '#status = :status AND NOT #lastSignalAt > :cutoff', names: { '#lastSignalAt': 'lastSignalAt' }, values: { ':cutoff': 'c' } },
      { add: { pingWindowCount: 1 } },
    );
    const compact = compactPlaceholders(input);
    const names = compact.ExpressionAttributeNames ?? {};
    const values = compact.ExpressionAttributeValues ?? {};
    expect(Object.keys(names).every((p) => /^#[0-9a-z]{1,2}$/.test(p))).toBe(true);
    expect(Object.keys(values).every((p) => /^:[0-9a-z]{1,2}$/.test(p))).toBe(true);
    expect(compact.UpdateExpression!.length).toBeLessThan(input.UpdateExpression!.length);
    for (const field of ['UpdateExpression', 'ConditionExpression'] as const) {
      expect(expand(compact[field], names, values)).toBe(expand(input[field], input.ExpressionAttributeNames ?? {}, input.ExpressionAttributeValues ?? {}));
    }
    expect(compact.Key).toEqual(input.Key);
  });

  it('renames a shape seen before the same way, with each request keeping its own values and names', () => {
    const request = (status: 'OK' | 'LATE' | 'DOWN', run: string, names: Record<string, string>) =>
      checkUpdateInput(
        'table',
        'abc',
        { set: { lastPingAt: status, status }, remove: [] },
        { expression: '#run = :was', names: { '#run': run, ...names }, values: { ':was': status } },
        {},
      );
    // The same placeholders in another order are another shape: each is renamed on its own terms.
    const requests = [request('OK', 'run_a', {}), request('LATE', 'run_b', {}), request('DOWN', 'run_c', { '#pk': 'pk' })];
    for (const input of requests) {
      const compact = compactPlaceholders(input);
      for (const field of ['UpdateExpression', 'ConditionExpression'] as const) {
        expect(expand(compact[field], compact.ExpressionAttributeNames ?? {}, compact.ExpressionAttributeValues ?? {})).toBe(
          expand(input[field], input.ExpressionAttributeNames ?? {}, input.ExpressionAttributeValues ?? {}),
        );
      }
    }
    const [first, second] = requests.map((input) => compactPlaceholders(input));
    expect(second?.UpdateExpression).toBe(first?.UpdateExpression);
    expect(Object.values(second?.ExpressionAttributeNames ?? {})).toContain('run_b');
  });
});
