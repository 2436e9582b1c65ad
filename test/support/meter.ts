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
