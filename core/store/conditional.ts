import { AGAIN, retry } from '../retry.js';

/** ElectroDB wraps the SDK error; both carry the condition failure somewhere in the chain. */
export function isConditionalFailure(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current; depth++) {
    const name = (current as { name?: string }).name;
    const message = (current as { message?: string }).message ?? '';
    if (name === 'ConditionalCheckFailedException' || message.includes('conditional request failed')) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Runs `work`, a side effect (a mail) after the write that records it as done; if the work throws,
 * gives that write back with `undo` and rethrows, so the caller's retry does the work instead of
 * finding it done. `undo` is conditional on the write still being this one's: when the condition no
 * longer holds, someone else has moved on and there is nothing to give back.
 */
export async function undoIfFails<T>(work: () => Promise<T>, undo: () => Promise<unknown>, what: string): Promise<T> {
  try {
    return await work();
  } catch (err) {
    await undo().catch((cause: unknown) => {
      if (!isConditionalFailure(cause)) console.error(`could not give back ${what}`, cause);
    });
    throw err;
  }
}

/** Thrown from inside `retryOnConflict`'s work to say "what I read is stale: read again". */
export class StaleRead extends Error {
  constructor(reason = 'stale read') {
    super(reason);
    this.name = 'StaleRead';
  }
}

export type ConflictRetry = {
  /** How many times the work may run in all (default 6). */
  attempts?: number;
  /** The error thrown when every attempt lost its race (default: a plain Error naming `what`). */
  onExhausted?: () => Error;
  what?: string;
};

const DEFAULT_ATTEMPTS = 6;

/**
 * The one optimistic-concurrency loop: `work` reads, decides and writes with a condition on what
 * it read. A lost race (a conditional failure, or `StaleRead` thrown by the work) runs it again
 * from the read; anything else propagates. Contention here is a handful of writers on one item,
 * so a few attempts settle it; running out is an error, never a silent skip.
 */
export async function retryOnConflict<T>(work: (attempt: number) => Promise<T>, options: ConflictRetry = {}): Promise<T> {
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  let lost: unknown;
  return retry<T>(
    async (attempt) => {
      try {
        return await work(attempt);
      } catch (err) {
        if (!(err instanceof StaleRead) && !isConditionalFailure(err)) throw err;
        lost = err;
        return AGAIN;
      }
    },
    { attempts },
    () => {
      throw options.onExhausted?.() ?? new Error(`${options.what ?? 'a conditional write'} lost ${attempts} races in a row`, { cause: lost });
    },
  );
}
