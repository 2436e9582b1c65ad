import type { z } from 'zod';
import { HttpError } from '../http/errors.js';
import { inLanes } from '../lanes.js';
import type { QueueMessage } from '../ports/index.js';

/**
 * The one shape of a queue consumer: a table of handlers by message `type`, and one table of
 * failures deciding whether a message is dropped or retried. Each message is handled on its own:
 * a failure is reported by id (the queue retries it with backoff, then dead-letters it: see
 * core/ports/retry.ts and MAX_RECEIVE_COUNT) and never holds up the rest of the batch. A message
 * that can never succeed is dropped, since retrying it would only dead-letter it.
 *
 * It sits with the outbox because the outbox is what owes these messages: every area that
 * consumes them (incidents, alerting, escalation) is above it.
 */

/** A handler's answer that its message is not finished: retry it, not sooner than a receiver asked. */
export type Unfinished = { unfinished: string; retryAfterSeconds?: number | null };

/** A handler of one message type: the body's schema and what to do with a body that passed it. */
export type MessageHandler = { run(body: unknown, id: string): Promise<Unfinished | { malformed: unknown } | void> };

export type HandlerTable = Readonly<Record<string, MessageHandler>>;

export function handler<T>(schema: z.ZodType<T>, handle: (message: T, id: string) => Promise<Unfinished | void>): MessageHandler {
  return {
    async run(body, id) {
      const parsed = schema.safeParse(body);
      if (!parsed.success) return { malformed: parsed.error.issues[0] };
      return handle(parsed.data, id);
    },
  };
}

/**
 * Why a message was not handled, and what becomes of it. The one place that decides drop or retry.
 * - MALFORMED: the body fails its type's schema; no retry will change it.
 * - UNKNOWN_TYPE: no handler here (such as warnings published to the `incidents` queue before they
 *   moved to `alerts`); quietly acknowledged.
 * - GONE: what the message is about no longer exists (a handler threw a 404 HttpError).
 * - UNFINISHED: the handler says a delivery is still owed (a receiver failed or asked to wait).
 * - FAILED: the handler threw anything else: a store hiccup, a bug; retried, then dead-lettered.
 */
const FAILURES = {
  MALFORMED: { verdict: 'drop', log: 'error' },
  UNKNOWN_TYPE: { verdict: 'drop', log: 'none' },
  GONE: { verdict: 'drop', log: 'none' },
  UNFINISHED: { verdict: 'retry', log: 'warn' },
  FAILED: { verdict: 'retry', log: 'error' },
} as const satisfies Record<string, { verdict: 'drop' | 'retry'; log: 'none' | 'warn' | 'error' }>;
export type FailureCode = keyof typeof FAILURES;

/** A thrown error, by the table's codes. */
const failureOf = (err: unknown): FailureCode => (err instanceof HttpError && err.status === 404 ? 'GONE' : 'FAILED');

const typeOf = (body: unknown): string | undefined => {
  const type = typeof body === 'object' && body !== null ? (body as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type : undefined;
};

/** A batch's result: the failed ids, and for some of them the seconds a receiver asked us to wait. */
export type BatchResult = { failedIds: string[]; retryAfterSeconds: Record<string, number> };

/**
 * What a message is about, for ordering: messages about the same check or incident are handled one
 * after another, in the batch's order; others at once. A queue guarantees no order (SQS standard
 * queues do not), so handlers already tolerate any; this only keeps one check's LATE and DOWN from
 * racing each other's conditional writes into retries. A body naming neither shares one lane.
 */
function orderingKey(body: unknown): string {
  if (typeof body !== 'object' || body === null) return '';
  const { checkId, incidentId } = body as { checkId?: unknown; incidentId?: unknown };
  if (typeof incidentId === 'number') return `incident#${incidentId}`;
  if (typeof checkId === 'number') return `check#${checkId}`;
  return '';
}

/**
 * Runs each message of the batch through its type's handler and reports what to retry. Messages
 * about different checks or incidents run at once (a mass outage delivers batches of them, and one
 * after another they left the store's thread idle between requests); those about the same one, in
 * order.
 */
export async function consumeMessages(queue: string, handlers: HandlerTable, messages: readonly QueueMessage[]): Promise<BatchResult> {
  const result: BatchResult = { failedIds: [], retryAfterSeconds: {} };
  const fail = (message: QueueMessage, code: FailureCode, detail: unknown, retryAfterSeconds?: number | null): void => {
    const { verdict, log } = FAILURES[code];
    if (log === 'error') console.error(`${queue} queue: ${verdict === 'drop' ? 'dropping' : 'retrying'} message ${message.id} (${code})`, detail);
    if (log === 'warn') console.warn(`${queue} queue: message ${message.id}: ${String(detail)}`);
    if (verdict === 'drop') return;
    result.failedIds.push(message.id);
    if (retryAfterSeconds !== undefined && retryAfterSeconds !== null) result.retryAfterSeconds[message.id] = retryAfterSeconds;
  };
  const one = async (message: QueueMessage): Promise<void> => {
    const type = typeOf(message.body);
    const handle = type === undefined ? undefined : handlers[type];
    if (!handle) {
      if (type === undefined) fail(message, 'MALFORMED', 'no message type');
      else fail(message, 'UNKNOWN_TYPE', type);
      return;
    }
    try {
      const outcome = await handle.run(message.body, message.id);
      if (outcome && 'malformed' in outcome) fail(message, 'MALFORMED', outcome.malformed);
      else if (outcome) fail(message, 'UNFINISHED', outcome.unfinished, outcome.retryAfterSeconds);
    } catch (err) {
      fail(message, failureOf(err), err);
    }
  };
  await inLanes(messages, (message) => orderingKey(message.body), one);
  return result;
}
