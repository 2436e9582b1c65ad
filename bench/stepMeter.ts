import type { Store } from '../core/store/service.js';

/**
 * Store requests and bytes written, by request kind and by what they touch (the entity of each
 * item: check, signal, incident, queue message, ...), counted at the SDK clients while `on`. The
 * mass outage divides them by the checks that flipped, so whatever writes the most per flip is
 * named by the bench.
 */
export type StepCounts = Map<string, { requests: number; items: number; bytes: number; read: number }>;

type Attr = { S?: string } | string | undefined;
const text = (value: Attr): string => (typeof value === 'string' ? value : (value?.S ?? ''));

/** `$check_1`, `$signal_1#...`, `$vigil#token_...`: the entity an item key names. */
function entityOf(key: Record<string, Attr> | undefined): string {
  if (!key) return '?';
  const sk = text(key.sk);
  // The usual shape read without a regular expression: the meter's CPU counts in the outage's figure.
  const underscore = sk.charCodeAt(0) === 36 ? sk.indexOf('_') : -1;
  if (underscore > 1) {
    const digit = sk.charCodeAt(underscore + 1);
    if (digit >= 48 && digit <= 57 && /^[A-Za-z]+$/.test(sk.slice(1, underscore))) return sk.slice(1, underscore);
  }
  const fromSk = /^\$([A-Za-z]+)_\d/.exec(sk)?.[1];
  if (fromSk) return fromSk;
  const pk = text(key.pk);
  return /^([a-z]+)[#:]/i.exec(pk)?.[1] ?? (pk.split(/[#_]/)[1] || '?');
}

/**
 * Bytes written, by row: every SIZE_EVERY-th item of a row is serialized, and the row's bytes are
 * scaled from those. Serializing every item (a JSON.stringify each) was about 3% of the mass
 * outage's CPU, which the outage's own figure counts. A row's items are of one kind and near one
 * size, so the estimate is close; a row's first item is always measured.
 */
const SIZE_EVERY = 8;
type Row = { requests: number; items: number; read: number; written: number; sized: number; sizedBytes: number };

export function meterSteps(stores: readonly Pick<Store, 'client' | 'hot'>[], prefix: string) {
  const rows = new Map<string, Row>();
  const rowOf = (name: string): Row => {
    let row = rows.get(name);
    if (!row) {
      row = { requests: 0, items: 0, read: 0, written: 0, sized: 0, sizedBytes: 0 };
      rows.set(name, row);
    }
    return row;
  };
  /** `UpdateItemCommand` -> `UpdateItem`, once per command name. */
  const commands = new Map<string, string>();
  const commandOf = (name: string | undefined): string => {
    if (name === undefined) return '?';
    let command = commands.get(name);
    if (command === undefined) {
      command = name.replace(/Command$/, '');
      commands.set(name, command);
    }
    return command;
  };
  /** One written item (`value`: what its bytes are, an item or an update's values). */
  const wrote = (row: Row, value: unknown) => {
    if (row.written++ % SIZE_EVERY !== 0) return;
    row.sized++;
    row.sizedBytes += Buffer.byteLength(JSON.stringify(value ?? null));
  };
  const state = {
    on: false,
    /** The rows so far, bytes scaled from the items measured. */
    get counts(): StepCounts {
      const counts: StepCounts = new Map();
      for (const [name, row] of rows)
        counts.set(name, { requests: row.requests, items: row.items, read: row.read, bytes: row.sized === 0 ? 0 : (row.sizedBytes * row.written) / row.sized });
      return counts;
    },
  };
  const add = (name: string, items: number): Row => {
    const row = rowOf(name);
    row.requests++;
    row.items += items;
    return row;
  };
  for (const store of stores) {
    for (const client of [store.client, store.hot]) {
      client.middlewareStack.add(
        // Not an async function: a request the meter does not wait on (all but queries) goes on
        // without another promise, since the outage's figure counts the meter's own CPU too.
        (next, context) => (args) => {
          let entry: Row | undefined;
          if (state.on) {
            const command = commandOf(context.commandName);
            const input = args.input as {
              Key?: Record<string, Attr>;
              Item?: Record<string, Attr>;
              RequestItems?: Record<string, { PutRequest?: { Item: Record<string, Attr> }; DeleteRequest?: { Key: Record<string, Attr> } }[] | { Keys?: Record<string, Attr>[] }>;
              IndexName?: string;
              KeyConditionExpression?: string;
              ExpressionAttributeValues?: Record<string, unknown>;
            };
            if (input.Item) wrote(add(`${prefix}${command} ${entityOf(input.Item)}`, 1), input.Item);
            else if (input.Key) {
              const row = add(`${prefix}${command} ${entityOf(input.Key)}`, 1);
              if (command === 'UpdateItem') wrote(row, input.ExpressionAttributeValues);
            } else if (input.RequestItems) {
              // One request however many items it carries (a batch of two kinds counts once for each kind).
              const kinds = new Map<string, { items: number; puts: Record<string, Attr>[] }>();
              const tally = (key: Record<string, Attr> | undefined, put: boolean) => {
                const kind = kinds.get(entityOf(key)) ?? { items: 0, puts: [] };
                kind.items++;
                if (put && key) kind.puts.push(key);
                kinds.set(entityOf(key), kind);
              };
              for (const requests of Object.values(input.RequestItems)) {
                if (Array.isArray(requests)) {
                  for (const request of requests) tally(request.PutRequest?.Item ?? request.DeleteRequest?.Key, request.PutRequest !== undefined);
                } else {
                  for (const key of requests.Keys ?? []) tally(key, false);
                }
              }
              for (const [kind, { items, puts }] of kinds) {
                const row = add(`${prefix}${command} ${kind}`, items);
                for (const item of puts) wrote(row, item);
              }
            } else {
              // A query names the entity its key condition's first value starts with.
              const values = Object.values(input.ExpressionAttributeValues ?? {})
                .map((value) => text(value as Attr))
                .join(' ');
              entry = add(`${prefix}${command} ${input.IndexName ?? 'table'} ${/\$([A-Za-z]+)_/.exec(values)?.[1] ?? /#([a-z]+)_/i.exec(values)?.[1] ?? ''}`, 0);
            }
          }
          if (!entry) return next(args);
          const query = entry;
          return next(args).then((result) => {
            // Items a query returned: a query whose answer grows with the outage is O(n) per flip.
            const count = (result.output as { Count?: number }).Count;
            if (typeof count === 'number') query.read += count;
            return result;
          });
        },
        { step: 'initialize', name: `benchSteps${prefix}` },
      );
    }
  }
  return state;
}
