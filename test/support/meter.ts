import type { Store } from '../../core/store/service.js';

/** One request the store was sent, and how many sequential round trips deep it sat. */
export type MeteredRequest = { command: string; depth: number };

/** What the store was asked while a meter ran. */
export type StoreMeter = {
  /** In the order they were sent. */
  requests: MeteredRequest[];
  stop(): void;
};

/**
 * Meters every request to the store's clients (the document client ElectroDB and the verbs use,
 * and the ping path's low-level one) until `stop()`. A request's depth is one more than the
 * deepest request answered before it was sent: requests sent together (Promise.all) share a
 * depth, and the deepest is the number of sequential round trips latency pays. Requests sent by
 * anything else running meanwhile count too: meter one verb at a time.
 */
export function meterStore(store: Pick<Store, 'client' | 'hot'>): StoreMeter {
  const name = `meter-${Math.random().toString(36).slice(2)}`;
  let answeredDepth = 0;
  const stacks = [store.client.middlewareStack, store.hot.middlewareStack];
  const meter: StoreMeter = { requests: [], stop: () => stacks.forEach((stack) => stack.remove(name)) };
  for (const stack of stacks) {
    stack.add(
      (next, context) => async (args) => {
        const depth = answeredDepth + 1;
        meter.requests.push({ command: (context.commandName ?? 'unknown').replace(/Command$/, ''), depth });
        try {
          return await next(args);
        } finally {
          answeredDepth = Math.max(answeredDepth, depth);
        }
      },
      { step: 'initialize', name },
    );
  }
  return meter;
}

/** The requests grouped by round trip, each trip's commands sorted: `[['GetItem'], ['GetItem', 'UpdateItem'], ...]`. */
export const roundTrips = (requests: readonly MeteredRequest[]): string[][] => {
  const trips: string[][] = [];
  for (const { command, depth } of requests) (trips[depth - 1] ??= []).push(command);
  return Array.from(trips, (trip) => (trip ?? []).sort());
};

/** Commands that write (anything but GetItem, BatchGetItem, Query). */
export const writesOf = (requests: readonly MeteredRequest[]): string[] =>
  requests.map((request) => request.command).filter((command) => !['GetItem', 'BatchGetItem', 'Query'].includes(command));

/** Runs `work` under a meter and stops it whatever happens. */
export async function metered<T>(store: Pick<Store, 'client' | 'hot'>, work: () => Promise<T>): Promise<{ result: T; requests: MeteredRequest[] }> {
  const meter = meterStore(store);
  try {
    return { result: await work(), requests: meter.requests };
  } finally {
    meter.stop();
  }
}

/** What the document client (ElectroDB's and the verbs') read while `run` ran. */
export type ClientReads<T> = { result: T; requests: number; scanned: number; whole: number; itemsRead: number };

/**
 * Requests to the document client, index items scanned (a Query's `ScannedCount`) and whole items
 * read (GetItem, BatchGetItem) while `run` runs: what a list page costs at the store. Only the
 * document client is counted, so the ping path's and the rate limiter's plain requests are not.
 */
export async function meterClientReads<T>(store: Pick<Store, 'client'>, run: () => Promise<T>): Promise<ClientReads<T>> {
  const counts = { requests: 0, scanned: 0, whole: 0 };
  const name = `reads-${Math.random().toString(36).slice(2)}`;
  store.client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      counts.requests++;
      const output = result.output as { ScannedCount?: number; Item?: unknown; Responses?: Record<string, unknown[]> };
      counts.scanned += output.ScannedCount ?? 0;
      counts.whole += output.Item ? 1 : 0;
      for (const items of Object.values(output.Responses ?? {})) counts.whole += items.length;
      return result;
    },
    { step: 'initialize', name },
  );
  try {
    const result = await run();
    return { result, ...counts, itemsRead: counts.scanned + counts.whole };
  } finally {
    store.client.middlewareStack.remove(name);
  }
}

/**
 * Makes the first request to either of the store's clients that `matches` picks fail, once (a
 * crash-point test's injected crash), then runs `after`. `input` is the request's input as JSON:
 * marshalled (`{"S":...}`) for the plain client, native for the document client.
 */
export function failOnce(
  store: Pick<Store, 'client' | 'hot'>,
  matches: (command: string, input: string) => boolean,
  after: () => void = () => undefined,
): { fired: () => boolean; remove: () => void } {
  const name = `fail-once-${Math.random().toString(36).slice(2)}`;
  let fired = false;
  const stacks = [store.client.middlewareStack, store.hot.middlewareStack];
  for (const stack of stacks) {
    stack.add(
      (next, context) => async (args) => {
        if (!fired && matches(context.commandName ?? '', JSON.stringify(args.input))) {
          fired = true;
          setImmediate(after);
          throw new Error('injected store failure');
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
  }
  return { fired: () => fired, remove: () => stacks.forEach((stack) => stack.remove(name)) };
}
