import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Broadcaster, Mailer, Queue, Scheduler, SmsSender } from './ports/index.js';
import type { BatchReads } from './store/batchReads.js';
import type { IncidentItem } from './store/entities/incident.js';
import type { OutboxClear, OutboxEntry } from './store/outbox.js';
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
   * Set only in the incidents consumer of a runtime whose alerts consumer runs in the same process
   * (the embedded runtime, core/runtime.ts): an incident write made there sends the alerts it owes
   * itself (core/incidents/handOff.ts), instead of publishing them for the alerts consumer to lease,
   * read the incident for, and acknowledge. Absent elsewhere (AWS, HTTP routes, sweeps): they publish.
   */
  alertHandOff?: AlertHandOff;
  /**
   * TXT and CNAME lookups for status-page custom domains (core/statuspages/customDomain.ts);
   * node:dns/promises when absent. Tests inject a fake: they never touch real DNS.
   */
  domainResolver?: { resolveTxt(hostname: string): Promise<string[][]>; resolveCname(hostname: string): Promise<string[]> };
};

/**
 * Sends the `alerts` entries an incident write owes (`incident`: the item as that write left it),
 * returning the ids of those it finished (each the outbox then clears unpublished; the rest it
 * publishes) and the incident writes their dispatch makes (the escalation planned after step 0),
 * to run once the outbox is cleared: run before, such a write would find the entries still owed
 * and its own relay would publish them. `after(clearing)`: the first of those writes takes the
 * clear (folded into it, or done on its own first); with no write, the clear is done on its own.
 */
export type AlertHandOff = (
  deps: Deps,
  incident: IncidentItem,
  entries: readonly OutboxEntry[],
) => Promise<{ sent: ReadonlySet<string>; after(clearing?: OutboxClear): Promise<void> }>;
