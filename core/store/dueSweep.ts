/**
 * The one shape of a sweep step over a sparse due index (core/store/ACCESS_PATTERNS.md, the
 * `byDue` rows): read the entries due at the sweep's instant page by page, re-read each item as
 * stored (an index lags its table), hand it to the step, and keep one item's failure from stalling
 * the rest. A failed item keeps its due entry, so the next sweep tries it again; that is why steps
 * must be idempotent. Every due entity spells its index attributes `dueShard` and `dueAt` and its
 * index `byDue` (core/store/entities/*). Entities that share a physical index (gsi2, gsi5) then
 * share the key prefix too, so each keeps shard values of its own (`deployment`, `maintenance`,
 * `announcements`, `escalation#0`, `oncall-notice#0`; the checks' are numbers) and a query never
 * reads another entity's partition.
 *
 * It lives in the store layer, not core/sweep/, because the areas that own the steps (status
 * pages, escalation, deployments, maintenance) sit below the sweep and may import only downwards.
 */

/** What a due sweep did: entries read from the index, items handled, items whose handling threw. */
export type DueSweepReport = { read: number; handled: number; failed: number };

/** One page of the index, as an ElectroDB query's `go({ cursor, limit })` answers. */
export type DuePage<T> = { data: T[]; cursor: string | null };

export type DueSweep<T> = {
  /** Names the step in the log line of a failed item. */
  name: string;
  /** The index's shards, each read to its end in turn. */
  shards: readonly string[];
  /** One page of entries due at or before the sweep's instant in `shard`, from `cursor`. */
  page(shard: string, cursor: string | null, limit: number): Promise<DuePage<T>>;
  /**
   * The item as stored now, read consistently, or null when it is gone or no longer due (someone
   * else handled it since the index was written). Without it the entry itself is handled: only for
   * a step whose every write is conditional on what the entry holds, so a stale entry loses its race.
   */
  reread?(entry: T): Promise<T | null>;
  /** Handles one due item. Throwing counts it failed and leaves it due. */
  handle(item: T): Promise<unknown>;
  /** Names the item in the log line of a failure. */
  label(entry: T): string;
  /** Items handled at once within a page (1: one after the other). */
  concurrency?: number;
  pageSize?: number;
};

const PAGE_SIZE = 100;

export async function sweepDue<T>(sweep: DueSweep<T>): Promise<DueSweepReport> {
  const report: DueSweepReport = { read: 0, handled: 0, failed: 0 };
  const concurrency = Math.max(1, sweep.concurrency ?? 1);
  const one = async (entry: T): Promise<void> => {
    try {
      const item = sweep.reread ? await sweep.reread(entry) : entry;
      if (item === null) return;
      await sweep.handle(item);
      report.handled++;
    } catch (err) {
      console.error(`${sweep.name}: ${sweep.label(entry)} failed`, err);
      report.failed++;
    }
  };
  for (const shard of sweep.shards) {
    let cursor: string | null = null;
    do {
      const page: DuePage<T> = await sweep.page(shard, cursor, sweep.pageSize ?? PAGE_SIZE);
      report.read += page.data.length;
      for (let i = 0; i < page.data.length; i += concurrency) await Promise.all(page.data.slice(i, i + concurrency).map(one));
      cursor = page.cursor;
    } while (cursor);
  }
  return report;
}

/** True when an item's `dueAt` (an ISO instant) is still ahead of `now`: not due after all. */
export const notYetDue = (dueAt: string | undefined, now: Date): boolean => dueAt === undefined || Date.parse(dueAt) > now.getTime();
