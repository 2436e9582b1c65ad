import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Broadcaster, Mailer, Queue, Scheduler, SmsSender } from './ports/index.js';
import type { BatchReads } from './store/batchReads.js';
import type { Store } from './store/service.js';

/** Everything a verb, router or worker needs from the outside world, injected once. */
export type Deps = {
  store: Store;
  clock: Clock;
  config: Config;
  queue: Queue;
  scheduler: Scheduler;
  broadcaster: Broadcaster;
  mailer: Mailer;
  sms: SmsSender;
  /**
   * Set by a runtime whose store is its own (`npm start` on its own data directory; the store
   * process holds an exclusive lock on it): when this process started using it. A claim taken
   * before then belongs to a process that is gone, however long its lease still runs. Absent
   * where other processes share the store (AWS, an external endpoint).
   */
  storeOwnedSince?: Date;
  /** Configuration reads shared by the messages of one queue batch (core/store/batchReads.ts); absent elsewhere. */
  batchReads?: BatchReads;
  /**
   * TXT and CNAME lookups for status-page custom domains (core/statuspages/customDomain.ts);
   * node:dns/promises when absent. Tests inject a fake: they never touch real DNS.
   */
  domainResolver?: { resolveTxt(hostname: string): Promise<string[][]>; resolveCname(hostname: string): Promise<string[]> };
};
