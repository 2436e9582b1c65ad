import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import type { Deps } from './deps.js';
import { LocalBroadcaster } from './adapters/local/broadcaster.js';
import { OutboxMailer } from './adapters/local/mailer.js';
import { OutboxSms } from './adapters/local/sms.js';
import { LocalQueue } from './adapters/local/queue.js';
import { LocalScheduler } from './adapters/local/scheduler.js';
import { createDynamoClient, ensureTable } from './store/client.js';
import { createStore } from './store/service.js';
import { handleIncidentMessages } from './incidents/worker.js';
import { handleAlertMessages } from './escalation/dispatch.js';
import { alertHandOff } from './escalation/handOff.js';
import type { QueueConsumer } from './ports/index.js';

export type LocalDeps = Deps & {
  queue: LocalQueue;
  scheduler: LocalScheduler;
  broadcaster: LocalBroadcaster;
  mailer: OutboxMailer;
  sms: OutboxSms;
};

/**
 * Wires the embedded runtime: the store at `endpoint` and the in-process adapters. The local
 * server and the integration tests both use it, so tests exercise what `npm start` runs.
 */
export async function createLocalDeps(options: {
  config: Config;
  endpoint: string;
  clock?: Clock;
  autoDrain: boolean;
  logMail?: boolean;
  /**
   * A store of their own for the queue lanes (the embedded runtime's second store process); without
   * it they live in the main store. Under ping load a publish to the main store waits behind every
   * ping request queued in that one process; in its own it is answered at once, on disk all the same.
   */
  queueEndpoint?: string;
  /** The store is this process's alone from now on (`Deps.storeOwnedSince`). */
  ownsStore?: boolean;
  /**
   * No other runtime receives from the queue lanes (LocalQueueOptions.ownsStore): the queue takes
   * leases a batch at a time, and its leases found at boot belong to a process that died.
   */
  ownsQueueStore?: boolean;
  /** The incidents consumer sends the alerts of the incidents it writes (`consumeIncidentsAndAlerts`); on unless false. */
  handOffAlerts?: boolean;
}): Promise<LocalDeps> {
  const client = createDynamoClient({ endpoint: options.endpoint });
  await ensureTable(client, options.config.tableName);
  const store = createStore(client, options.config.tableName);
  const lanes = options.queueEndpoint === undefined ? store : await laneStore(options.queueEndpoint, options.config.tableName);
  const clock = options.clock ?? systemClock;
  const deps: LocalDeps = {
    store,
    clock,
    config: options.config,
    // Batches of 25: a batch's messages run at once and share their configuration reads (core/outbox/consumer.ts).
    queue: new LocalQueue({ store: lanes, clock, autoDrain: options.autoDrain, batchSize: 25, ownsStore: options.ownsQueueStore ?? false }),
    scheduler: new LocalScheduler(),
    broadcaster: new LocalBroadcaster(),
    mailer: new OutboxMailer({ log: options.logMail ?? false, clock }),
    // Text messages are logged as mail is (`logMail`): the embedded runtime sends neither.
    sms: new OutboxSms({ log: options.logMail ?? false, clock }),
    ...(options.ownsStore ? { storeOwnedSince: clock.now() } : {}),
  };
  consumeIncidentsAndAlerts(deps, { handOffAlerts: options.handOffAlerts ?? true });
  return deps;
}

/**
 * The two queue consumers. With `handOffAlerts`, the incidents consumer sends the alerts its
 * incident writes owe itself (core/escalation/handOff.ts), as the alerts consumer registered here
 * would, saving each its queue message; only while that consumer is the registered one: a caller
 * that registers its own (a test with its own outbound options) gets every alert through it, as
 * before. On AWS the two are separate Lambdas and the incidents one keeps publishing
 * (functions/incidentWorker.ts): it has neither the alert senders' permissions and secrets nor a
 * timeout that fits a batch of webhooks (docs/adr/0015-a-flip-reads-nothing-twice.md).
 */
export function consumeIncidentsAndAlerts(deps: LocalDeps, options: { handOffAlerts: boolean }): void {
  const alerts: QueueConsumer = (messages) => handleAlertMessages(deps, messages);
  const handOff = alertHandOff({});
  deps.queue.consume('alerts', alerts);
  deps.queue.consume('incidents', (messages) =>
    handleIncidentMessages(deps, messages, options.handOffAlerts && deps.queue.consumerOf('alerts') === alerts ? { alertHandOff: handOff } : {}),
  );
}

/** The same table, on the queue lanes' own endpoint (only the queue's entity is used there). */
async function laneStore(endpoint: string, tableName: string) {
  const client = createDynamoClient({ endpoint });
  await ensureTable(client, tableName);
  return createStore(client, tableName);
}
