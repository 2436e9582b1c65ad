import { BatchWriteItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { SignalWriter } from './signalWriter.js';

type Sent = { kind: 'put' | 'batch'; keys: string[] };

/** A stand-in for the ping path's table client that records requests and answers them as told. */
function fakeStore(answer: (sent: Sent, call: number) => { unprocessed?: string[]; fail?: boolean } = () => ({})) {
  const sent: Sent[] = [];
  const client = {
    send: async (command: unknown) => {
      await Promise.resolve();
      let entry: Sent;
      if (command instanceof PutItemCommand) entry = { kind: 'put', keys: [String(command.input.Item?.sk?.S)] };
      else if (command instanceof BatchWriteItemCommand) entry = { kind: 'batch', keys: (command.input.RequestItems?.t ?? []).map((r) => String(r.PutRequest?.Item?.sk?.S)) };
      else throw new Error('unexpected command');
      sent.push(entry);
      const reply = answer(entry, sent.length);
      if (reply.fail) throw new Error('store down');
      const left = (reply.unprocessed ?? []).map((sk) => ({ PutRequest: { Item: { pk: { S: 'p' }, sk: { S: sk } } } }));
      return left.length ? { UnprocessedItems: { t: left } } : {};
    },
  };
  return { sent, store: { hot: client as unknown as DynamoDBClient, table: 't' } };
}
const item = (sk: string) => ({ pk: 'p', sk });

describe('signal group commit', () => {
  it('writes a lone signal with one PutItem', async () => {
    const { sent, store } = fakeStore();
    await new SignalWriter(store, 0).write(item('a'));
    expect(sent).toEqual([{ kind: 'put', keys: ['a'] }]);
  });

  it('groups signals that arrive while requests are in flight, and settles each one', async () => {
    const { sent, store } = fakeStore();
    const writer = new SignalWriter(store, 0);
    const keys = Array.from({ length: 60 }, (_, i) => `s${i}`);
    await Promise.all(keys.map((k) => writer.write(item(k))));
    expect(sent.flatMap((s) => s.keys).sort()).toEqual([...keys].sort());
    expect(sent.length).toBeLessThan(10);
    expect(Math.max(...sent.map((s) => s.keys.length))).toBeLessThanOrEqual(25);
  });

  it('retries unprocessed items and rejects only what the store never took', async () => {
    const { sent, store } = fakeStore((entry) => (entry.kind === 'batch' ? { unprocessed: entry.keys.filter((k) => k === 'stuck' || (k === 'slow' && sent.length < 5)) } : {}));
    const writer = new SignalWriter(store, 0);
    const results = await Promise.allSettled(['w1', 'w2', 'w3', 'w4', 'slow', 'stuck', 'ok'].map((k) => writer.write(item(k))));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  });

  it('rejects every signal of a failed request', async () => {
    const { store } = fakeStore((_entry, call) => ({ fail: call > 1 }));
    const writer = new SignalWriter(store, 0);
    const results = await Promise.allSettled(['a', 'b', 'c'].map((k) => writer.write(item(k))));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
  });
});

describe('signal group commit with one key written twice', () => {
  it('sends the key once per batch and settles both writes', async () => {
    const { sent, store } = fakeStore((entry) => (new Set(entry.keys).size < entry.keys.length ? { fail: true } : {}));
    const writer = new SignalWriter(store, 0);
    const results = await Promise.allSettled(['a', 'same', 'b', 'same'].map((k) => writer.write(item(k))));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(sent).toEqual([
      { kind: 'put', keys: ['a'] },
      { kind: 'batch', keys: ['same', 'b'] },
    ]);
  });
});

/** One turn of the event loop: what a put waiting for an update that answered takes. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('signal group commit beside pings in flight', () => {
  it('holds a put while another ping update is in flight and sends both signals in one request', async () => {
    const { sent, store } = fakeStore();
    const writer = new SignalWriter(store, 0);
    const landed = writer.updateInFlight();
    const first = writer.write(item('a'));
    await turn();
    expect(sent).toEqual([]);
    // The other ping's update answers and its signal follows in the same turn.
    landed();
    await Promise.all([first, writer.write(item('b'))]);
    expect(sent).toEqual([{ kind: 'batch', keys: ['a', 'b'] }]);
  });

  it('sends a lone put at once when no update is in flight', async () => {
    const { sent, store } = fakeStore();
    const writer = new SignalWriter(store, 0);
    writer.updateInFlight()();
    const written = writer.write(item('a'));
    expect(sent).toEqual([]);
    await written;
    expect(sent).toEqual([{ kind: 'put', keys: ['a'] }]);
  });

  it('waits only for the updates in flight when it arrived, and goes a turn after they answer without a signal', async () => {
    const { sent, store } = fakeStore();
    const writer = new SignalWriter(store, 0);
    const awaited = writer.updateInFlight();
    const written = writer.write(item('a'));
    // An update that began later, and may take long, is not waited for.
    const later = writer.updateInFlight();
    await turn();
    expect(sent).toEqual([]);
    // The awaited ping stores no signal (a duplicate): the put leaves alone a turn later.
    awaited();
    await written;
    expect(sent).toEqual([{ kind: 'put', keys: ['a'] }]);
    later();
  });
});
