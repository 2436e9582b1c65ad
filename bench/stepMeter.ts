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
  const fromSk = /^\$([A-Za-z]+)_\d/.exec(sk)?.[1];
  if (fromSk) return fromSk;
  const pk = text(key.pk);
  return /^([a-z]+)[#:]/i.exec(pk)?.[1] ?? (pk.split(/[#_]/)[1] || '?');
}

const sizeOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value ?? null));

export function meterSteps(stores: readonly Pick<Store, 'client' | 'hot'>[], prefix: string) {
  const state = { on: false, counts: new Map() as StepCounts };
  const add = (name: string, items: number, bytes: number): { read: number } => {
    const entry = state.counts.get(name) ?? { requests: 0, items: 0, bytes: 0, read: 0 };
    entry.requests++;
    entry.items += items;
    entry.bytes += bytes;
    state.counts.set(name, entry);
    return entry;
  };
  for (const store of stores) {
    for (const client of [store.client, store.hot]) {
      client.middlewareStack.add(
        (next, context) => async (args) => {
          let entry: { read: number } | undefined;
          if (state.on) {
            const command = context.commandName?.replace(/Command$/, '') ?? '?';
            const input = args.input as {
              Key?: Record<string, Attr>;
              Item?: Record<string, Attr>;
              RequestItems?: Record<string, { PutRequest?: { Item: Record<string, Attr> }; DeleteRequest?: { Key: Record<string, Attr> } }[] | { Keys?: Record<string, Attr>[] }>;
              IndexName?: string;
              KeyConditionExpression?: string;
              ExpressionAttributeValues?: Record<string, unknown>;
            };
            if (input.Item) add(`${prefix}${command} ${entityOf(input.Item)}`, 1, sizeOf(input.Item));
            else if (input.Key) add(`${prefix}${command} ${entityOf(input.Key)}`, 1, command === 'UpdateItem' ? sizeOf(input.ExpressionAttributeValues) : 0);
            else if (input.RequestItems) {
              // One request however many items it carries (a batch of two kinds counts once for each kind).
              const kinds = new Map<string, { items: number; bytes: number }>();
              const tally = (key: Record<string, Attr> | undefined, bytes: number) => {
                const kind = kinds.get(entityOf(key)) ?? { items: 0, bytes: 0 };
                kind.items++;
                kind.bytes += bytes;
                kinds.set(entityOf(key), kind);
              };
              for (const requests of Object.values(input.RequestItems)) {
                if (Array.isArray(requests)) {
                  for (const request of requests) {
                    const item = request.PutRequest?.Item ?? request.DeleteRequest?.Key;
                    tally(item, request.PutRequest ? sizeOf(item) : 0);
                  }
                } else {
                  for (const key of requests.Keys ?? []) tally(key, 0);
                }
              }
              for (const [kind, { items, bytes }] of kinds) add(`${prefix}${command} ${kind}`, items, bytes);
            } else {
              // A query names the entity its key condition's first value starts with.
              const values = Object.values(input.ExpressionAttributeValues ?? {})
                .map((value) => text(value as Attr))
                .join(' ');
              entry = add(`${prefix}${command} ${input.IndexName ?? 'table'} ${/\$([A-Za-z]+)_/.exec(values)?.[1] ?? /#([a-z]+)_/i.exec(values)?.[1] ?? ''}`, 0, 0);
            }
          }
          const result = await next(args);
          // Items a query returned: a query whose answer grows with the outage is O(n) per flip.
          const count = (result.output as { Count?: number }).Count;
          if (entry && typeof count === 'number') entry.read += count;
          return result;
        },
        { step: 'initialize', name: `benchSteps${prefix}` },
      );
    }
  }
  return state;
}
