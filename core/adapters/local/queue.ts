import { AsyncResource } from 'node:async_hooks';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../../clock.js';
import {
  MAX_RECEIVE_COUNT,
  QUEUE_NAMES,
  VISIBILITY_TIMEOUT_SECONDS,
  type HandedMessages,
  type Queue,
  type QueueConsumer,
  type QueueMessage,
  type QueueName,
} from '../../ports/index.js';
import { retryDelaySeconds } from '../../ports/retry.js';
import { isConditionalFailure } from '../../store/conditional.js';
import type { QueueMessageItem } from '../../store/entities/queueMessage.js';
import type { Store } from '../../store/service.js';
import { monotonicUlids } from '../../ids.js';
import { inLanes } from '../../lanes.js';
import { messageOf, visibleBeforeInput } from './queueItems.js';
import { deleteMessages, leaseEach, leaseTogether, PublishCommit } from './queueWrites.js';

export type LocalQueueOptions = {
  store: Store;
  clock: Clock;
  /** Deliver right after each publish (the local server); tests leave it off and drain by hand. */
  autoDrain: boolean;
  maxReceives?: number;
  batchSize?: number;
  visibilityTimeoutSeconds?: number;
  /** The retry jitter's source (tests pin it). */
  random?: () => number;
  /** How often `start()` looks for messages that became visible (delayed retries, expired leases). */
  pollMs?: number;
  /**
   * No other runtime receives from these lanes (the embedded runtime on a queue store of its own,
   * runtime.ts `ownsQueueStore`): leases are then taken a batch at a time, and `reclaimLeases`
   * may run at boot. Off by default, for lanes that another runtime may share.
   */
  ownsStore?: boolean;
};

/** Which messages a pass may receive: those visible now, or (tests) every one not leased right now. */
type Reach = 'due' | 'all';

export const deadLetterLane = (queue: QueueName): string => `${queue}-dlq`;

/**
 * Waits for all of `work`, then throws the first failure, if any. Unlike `Promise.all`, nothing
 * is still running once it has thrown (see `LocalQueue.deliver` for what that cost).
 */
async function settleAll(work: readonly Promise<unknown>[]): Promise<void> {
  const failure = (await Promise.allSettled(work)).find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure) throw failure.reason;
}

/**
 * The embedded runtime's queues, kept in the store so a SIGKILL loses nothing that was published,
 * with SQS's semantics where they matter: at-least-once delivery, a visibility timeout on each
 * receive, partial batch failures retried with backoff (and a receiver's Retry-After), and a
 * dead letter after `maxReceives` receives, as on AWS.
 *
 * A receive is a conditional update on the message's receive count, so two runtimes on one table
 * never both hold a message; a lease left by a crashed one lapses after the visibility timeout.
 * A runtime that owns its lanes alone (`ownsStore`) leases a batch with one BatchWriteItem instead.
 */
export class LocalQueue implements Queue {
  /** Messages this instance dead-lettered (a test hook; `deadLettered()` reads the store). */
  readonly deadLetters: Record<string, QueueMessage[]> = {};
  /** Bodies this instance published and that are not yet done with (the sync test hook `peek`). */
  private readonly published = new Map<QueueName, Map<string, unknown>>();
  private readonly consumers = new Map<QueueName, QueueConsumer>();
  /** Messages handed off (`handOff`), oldest first, per queue; their ids, until settled, in `held` with their queue and when they came. */
  private readonly handed = new Map<QueueName, HandedMessages[]>();
  private readonly held = new Map<string, { queue: QueueName; at: number }>();
  /**
   * Lanes whose last receive found nothing visible, with nothing published to them since (only for
   * a runtime that owns its lanes: nobody else writes to them). In a mass outage every hand-off
   * starts a delivery pass, and each pass asked the store for messages of the lane it had nothing
   * handed for, finding none: 0.36 queries a flipping check. What becomes visible with time (a
   * delayed retry, a lapsed lease) is found by the poll, which forgets these first; so is a
   * message some other writer put in the store.
   */
  private readonly emptyLanes = new Set<QueueName>();
  /** Per lane, how many publishes have been written: a receive that overlapped one learns nothing. */
  private readonly laneWrites = new Map<QueueName, number>();
  private readonly nextId = monotonicUlids();
  private readonly publishes: PublishCommit;
  private running: Promise<void> | undefined;
  private scheduled = false;
  private poller: NodeJS.Timeout | undefined;
  /**
   * The delivery loop's own async context, taken when the queue is made. A kick comes from inside
   * a publisher (a ping's relay, a consumer): without this the whole delivery pass, consumers and
   * their publishes included, would run in that request's context and keep it alive, and anything
   * request-scoped (AsyncLocalStorage: the relay-lag meter of bench/aws.ts, a tracer) would count
   * the queue's background work as the request's.
   */
  private readonly deliveryScope = new AsyncResource('LocalQueueDelivery');

  constructor(private readonly options: LocalQueueOptions) {
    this.publishes = new PublishCommit(options.store);
  }

  /** The store that holds the lanes (the main one, or the queue's own: runtime.ts `queueEndpoint`). */
  get store(): Store {
    return this.options.store;
  }

  /** Whether no other runtime receives from these lanes (`LocalQueueOptions.ownsStore`). */
  get ownsStore(): boolean {
    return this.options.ownsStore ?? false;
  }

  private get maxReceives(): number {
    return this.options.maxReceives ?? MAX_RECEIVE_COUNT;
  }

  consume(queue: QueueName, consumer: QueueConsumer): void {
    this.consumers.set(queue, consumer);
  }

  /** The consumer registered for `queue` (core/runtime.ts hands alerts off only to its own). */
  consumerOf(queue: QueueName): QueueConsumer | undefined {
    return this.consumers.get(queue);
  }

  /** Resolves once the store holds every message, so a caller that answers 200 afterwards loses nothing. */
  async publish(queue: QueueName, bodies: unknown[]): Promise<void> {
    if (bodies.length === 0) return;
    const now = this.options.clock.now();
    const items = bodies.map((body) => ({
      lane: queue,
      messageId: this.nextId(now.getTime()),
      body: JSON.stringify(body ?? null),
      receiveCount: 0,
      visibleAt: now.toISOString(),
      leased: false,
      sentAt: now.toISOString(),
    }));
    await this.publishes.put(items);
    this.wrote(queue);
    const mirror = this.published.get(queue) ?? new Map<string, unknown>();
    for (const item of items) mirror.set(item.messageId, JSON.parse(item.body) as unknown);
    this.published.set(queue, mirror);
    if (this.options.autoDrain) this.kick();
  }

  /**
   * Takes messages an outbox owes for this queue's consumer here (`Queue.handOff`,
   * core/outbox/relay.ts handOffAfterWrite): delivered in the same passes and batches as stored
   * messages, before them, and settled after their batch, in the order they came. False without a
   * consumer of `queue`.
   * Nothing is written: the outbox holds them until the settle, and a crash leaves them to the
   * sweep's relay, which publishes them here.
   */
  handOff(queue: QueueName, handed: HandedMessages): boolean {
    if (!this.consumers.has(queue) || handed.messages.length === 0) return false;
    const waiting = this.handed.get(queue);
    // Appended in place: a mass outage hands off thousands, and a copy each time grew with the backlog.
    if (waiting) waiting.push(handed);
    else this.handed.set(queue, [handed]);
    const mirror = this.published.get(queue) ?? new Map<string, unknown>();
    const at = this.options.clock.now().getTime();
    for (const message of handed.messages) {
      this.held.set(message.id, { queue, at });
      mirror.set(message.id, message.body);
    }
    this.published.set(queue, mirror);
    if (this.options.autoDrain) this.kick();
    return true;
  }

  /** A message of `queue` was written to the store visible now: the next pass asks for it. */
  private wrote(queue: QueueName): void {
    this.laneWrites.set(queue, (this.laneWrites.get(queue) ?? 0) + 1);
    this.emptyLanes.delete(queue);
  }

  holds(id: string): boolean {
    return this.held.has(id);
  }

  /**
   * The messages of `queue` handed off and not yet settled, waiting or in flight, and when the
   * oldest came: the queue's depth beside its store's (core/metrics/install.ts), which in a mass
   * outage is where the backlog is.
   */
  handedOff(queue: QueueName): { count: number; oldestAt: Date | undefined } {
    let count = 0;
    let oldest: number | undefined;
    for (const held of this.held.values()) {
      if (held.queue !== queue) continue;
      count++;
      if (oldest === undefined || held.at < oldest) oldest = held.at;
    }
    return { count, oldestAt: oldest === undefined ? undefined : new Date(oldest) };
  }

  /** Messages this instance published that are still waiting (tests use it to see what a step published). */
  peek(queue: QueueName): unknown[] {
    return [...(this.published.get(queue)?.values() ?? [])];
  }

  /** Every message of `queue` in the store, pending or in flight (tests). */
  async pending(queue: QueueName): Promise<QueueMessageItem[]> {
    return (await this.options.store.entities.queueMessage.query.byId({ lane: queue }).go({ pages: 'all', consistent: true })).data;
  }

  /** The dead letters of `queue` in the store, whoever put them there. */
  async deadLettered(queue: QueueName): Promise<QueueMessage[]> {
    const items = (await this.options.store.entities.queueMessage.query.byId({ lane: deadLetterLane(queue) }).go({ pages: 'all', consistent: true })).data;
    return items.map((item) => ({ id: item.messageId, body: JSON.parse(item.body) as unknown, receiveCount: item.receiveCount }));
  }

  /**
   * The test hook: delivers everything pending, including what consumers publish while it runs and
   * retries whose delay has not passed (as if it had; tests move the clock only where they mean
   * to). A message another runtime holds in flight is left alone.
   */
  async drain(): Promise<void> {
    await this.exclusive(() => this.deliver('all'));
  }

  /** Delivers what is visible at the clock's now, as the runtime does; delays are honoured. */
  async deliverDue(): Promise<void> {
    // The clock may have moved past a delay: every lane is asked again.
    this.emptyLanes.clear();
    await this.exclusive(() => this.deliver('due'));
  }

  /** Delivers at once and then every `pollMs`, so delayed retries and a crashed run's messages go out. */
  start(): void {
    if (this.poller) return;
    this.poller = setInterval(() => {
      this.emptyLanes.clear();
      this.kick();
    }, this.options.pollMs ?? 1000);
    this.poller.unref();
    this.kick();
  }

  /** Resolves once no delivery pass is running or waiting to start (tests: after a hand-off or publish). */
  async idle(): Promise<void> {
    while (this.running || this.scheduled) await (this.running ?? new Promise<void>((resolve) => setImmediate(resolve))).catch(() => {});
  }

  /** Stops polling and finishes what is due; what is delayed waits in the store for the next start. */
  async stop(): Promise<void> {
    if (this.poller) clearInterval(this.poller);
    this.poller = undefined;
    await this.deliverDue();
  }

  private kick(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.deliveryScope.runInAsyncScope(() =>
      setImmediate(() => {
        this.scheduled = false;
        void this.exclusive(() => this.deliver('due')).catch((err: unknown) => console.error('local queue delivery failed', err));
      }),
    );
  }

  private async exclusive(work: () => Promise<void>): Promise<void> {
    while (this.running) await this.running;
    this.running = work();
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
  }

  /**
   * In rounds: each round takes one batch of every queue and handles them at once (a mass outage
   * fills both, and one waiting for the other left the store idle), and rounds go on while any
   * queue moved, since a consumer of one publishes to the other. One batch each per round, so
   * neither queue waits for the other to empty: the incidents a flip opens send their alerts
   * while the flips behind them are still queued.
   *
   * A round ends only when every queue's part of it has: `settleAll`, never `Promise.all`. With
   * `Promise.all`, a store error in one queue's part (the crash-point tests inject exactly that)
   * rejected the drain while the other queue's part ran on, holding the leases of the messages it
   * had received. `exclusive` then let the next pass start beside it; that pass could not see the
   * leased messages, found nothing, and returned, and what the orphaned part sent or published
   * came afterwards, when no pass was left to deliver it. So in core/outbox/crashPoints.test.ts
   * 'a deployment pause', a crash in the incidents part while the alerts part held the
   * incident's resolution left the recovery drain to finish first, and under load the second
   * channel's resolution mail was sent only after the test had looked (an owed alert delivered
   * by nobody in the test's view; in the embedded runtime, a pass overlapping the one before it).
   */
  private async deliver(reach: Reach): Promise<void> {
    for (let progressed = true; progressed; ) {
      progressed = false;
      await settleAll(
        [...this.consumers].map(async ([queue, consumer]) => {
          // What was handed off goes first: its writer is waiting for nothing, but its outbox entries
          // are still owed (and indexed) until it is settled.
          if (await this.deliverHanded(queue, consumer)) {
            progressed = true;
            return;
          }
          const { batch, seen, failure } = await this.receive(queue, reach);
          // Messages dead-lettered or taken by another runtime still count: more may wait behind them.
          if (seen > 0) progressed = true;
          // What was leased is handled even when another lease failed: left leased, it would wait out the visibility timeout.
          if (batch.length > 0) await this.handle(queue, consumer, batch);
          if (failure !== undefined) throw failure;
        }),
      );
    }
  }

  /**
   * One batch of handed-off messages (whole hand-offs, up to the batch size unless one is larger),
   * given to the consumer as a first receive, then each hand-off settled with the ids the consumer
   * finished (its outbox cleared of them, the rest published and retried as stored messages).
   * False when there were none.
   */
  private async deliverHanded(queue: QueueName, consumer: QueueConsumer): Promise<boolean> {
    const waiting = this.handed.get(queue);
    if (!waiting || waiting.length === 0) return false;
    const batchSize = this.options.batchSize ?? 10;
    let count = 0;
    let taken = 0;
    while (taken < waiting.length && (taken === 0 || count + (waiting[taken]?.messages.length ?? 0) <= batchSize)) count += waiting[taken++]?.messages.length ?? 0;
    const batch = waiting.splice(0, taken);
    const messages = batch.flatMap((handed) => handed.messages.map((message) => ({ id: message.id, body: message.body, receiveCount: 1 })));
    let failed: ReadonlySet<string>;
    try {
      failed = new Set((await consumer(messages)).failedIds);
    } catch (err) {
      console.error(`local queue ${queue}: consumer threw`, err);
      failed = new Set(messages.map((message) => message.id));
    }
    // An item's settles in the order it handed them off: a later hand-off of the same item counts
    // the earlier one's entries as settled (core/outbox/relay.ts handOffInOrder). Different items'
    // settles are independent and go at once, as the consumer runs their messages. One after
    // another, each settle's outbox clear was a LevelDB batch of its own, a round trip to the
    // thread pool: a mass outage of 4,000 checks made 11,400 batches for its 66,000 writes, and
    // 5,000 with this (docs/adr/0017-status-changes-skip-the-local-queue.md).
    await inLanes(
      batch,
      (handed) => handed.item,
      (handed) => handed.settle(new Set(handed.messages.map((message) => message.id).filter((id) => !failed.has(id)))),
    );
    const mirror = this.published.get(queue);
    for (const message of messages) {
      this.held.delete(message.id);
      mirror?.delete(message.id);
    }
    return true;
  }

  /** Takes up to a batch of messages, oldest visible first, each under a lease of its own. */
  private async receive(queue: QueueName, reach: Reach): Promise<{ batch: QueueMessageItem[]; seen: number; failure?: unknown }> {
    const { queueMessage } = this.options.store.entities;
    const batchSize = this.options.batchSize ?? 10;
    const now = this.options.clock.now();
    const nowIso = now.toISOString();
    // The sort key is visibleAt#messageId, so "visibleAt <= now" is "key < the key of now + 1 ms".
    const justAfterNow = new Date(now.getTime() + 1).toISOString();
    const remembers = reach === 'due' && this.ownsStore;
    if (remembers && this.emptyLanes.has(queue)) return { batch: [], seen: 0 };
    const writesBefore = this.laneWrites.get(queue) ?? 0;
    const candidates =
      reach === 'due'
        ? ((await this.options.store.hot.send(new QueryCommand(visibleBeforeInput(this.options.store.table, queue, justAfterNow, batchSize)))).Items ?? []).flatMap(
            (stored) => messageOf(this.options.store, stored) ?? [],
          )
        : (await queueMessage.query.visible({ lane: queue }).go({ pages: 'all' })).data.filter((m) => !m.leased || m.visibleAt <= nowIso);
    if (remembers && candidates.length === 0 && (this.laneWrites.get(queue) ?? 0) === writesBefore) this.emptyLanes.add(queue);
    const leaseEnd = new Date(now.getTime() + (this.options.visibilityTimeoutSeconds ?? VISIBILITY_TIMEOUT_SECONDS) * 1000).toISOString();
    const taking = candidates.slice(0, batchSize);
    // As on SQS, a message received as often as allowed (its last receiver crashed) is parked, not delivered.
    const [spent, deliverable] = [taking.filter((m) => m.receiveCount >= this.maxReceives), taking.filter((m) => m.receiveCount < this.maxReceives)];
    // Settled, not Promise.all: one failed write must not strand the leases taken meanwhile unhandled.
    const [parked, leases] = await Promise.allSettled([
      Promise.all(spent.map((candidate) => this.deadLetter(queue, candidate))),
      this.ownsStore ? leaseTogether(this.options.store, deliverable, leaseEnd) : leaseEach(this.options.store, queue, deliverable, leaseEnd),
    ]);
    const batch = leases.status === 'fulfilled' ? leases.value.taken : [];
    const failure = parked.status === 'rejected' ? parked.reason : leases.status === 'rejected' ? leases.reason : leases.value.failure;
    return { batch, seen: taking.length, ...(failure === undefined ? {} : { failure }) };
  }

  private async handle(queue: QueueName, consumer: QueueConsumer, batch: QueueMessageItem[]): Promise<void> {
    let failedIds: string[];
    let retryAfter: Record<string, number> = {};
    try {
      const result = await consumer(batch.map((item) => ({ id: item.messageId, body: JSON.parse(item.body) as unknown, receiveCount: item.receiveCount })));
      failedIds = result.failedIds;
      retryAfter = result.retryAfterSeconds ?? {};
    } catch (err) {
      console.error(`local queue ${queue}: consumer threw`, err);
      failedIds = batch.map((item) => item.messageId);
    }
    const failed = new Set(failedIds);
    await settleAll([
      this.acknowledgeAll(
        queue,
        batch.filter((item) => !failed.has(item.messageId)),
      ),
      ...batch
        .filter((item) => failed.has(item.messageId))
        .map((item) => (item.receiveCount >= this.maxReceives ? this.deadLetter(queue, item) : this.retryLater(queue, item, retryAfter[item.messageId]))),
    ]);
  }

  /**
   * Makes every leased message visible now. Only for a runtime that owns its store alone (`npm start`
   * on its own data directory, whose LevelDB store takes an exclusive lock, in this process or another): any lease found at boot
   * was taken by a process that is gone, so its messages need not wait out the visibility timeout.
   * Conditional on the receive count read, so a message settled meanwhile is left alone.
   */
  async reclaimLeases(): Promise<number> {
    const { queueMessage } = this.options.store.entities;
    const nowIso = this.options.clock.now().toISOString();
    let reclaimed = 0;
    for (const queue of QUEUE_NAMES) {
      // Leased messages carry their lease end as visibleAt, so they sort after now.
      const future = (await queueMessage.query.visible({ lane: queue }).gt({ visibleAt: nowIso }).go({ pages: 'all' })).data;
      for (const item of future.filter((message) => message.leased)) {
        await this.settle(async () => {
          await queueMessage
            .patch({ lane: queue, messageId: item.messageId })
            .set({ visibleAt: nowIso, leased: false })
            .where((attr, op) => `${op.eq(attr.receiveCount, item.receiveCount)} AND ${op.eq(attr.leased, true)}`)
            .go();
          reclaimed++;
          this.wrote(queue);
        });
      }
    }
    return reclaimed;
  }

  /** Each settle is conditional on the receive it answers: a lease that lapsed meanwhile is someone else's now. */
  private async settle(write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (err) {
      if (!isConditionalFailure(err)) throw err;
    }
  }

  /**
   * The messages the consumer handled, deleted in one BatchWriteItem per 25 rather than one
   * conditional DeleteItem each. Unconditional, and still safe: the only write the condition on
   * the receive count could stop is a delete after this lease lapsed and another receiver took the
   * message (a shared store, or a consumer slower than the visibility timeout). That message has
   * been handled once already, by this receiver, so deleting it under the other one's lease keeps
   * at-least-once: the other receiver may deliver it a second time (SQS's own duplicate), and its
   * settle of a message gone finds nothing to retry (a retry is a conditional update; a dead letter
   * would park a copy of a message already handled, never lose one). A message is never deleted
   * before its consumer said it was handled, so nothing owed is lost.
   */
  private async acknowledgeAll(queue: QueueName, items: QueueMessageItem[]): Promise<void> {
    if (items.length === 0) return;
    await deleteMessages(this.options.store, items, `acknowledgements of local queue ${queue}`);
    const mirror = this.published.get(queue);
    for (const item of items) mirror?.delete(item.messageId);
  }

  private async retryLater(queue: QueueName, item: QueueMessageItem, retryAfterSeconds: number | undefined): Promise<void> {
    const delay = retryDelaySeconds({ receiveCount: item.receiveCount, retryAfterSeconds, ...(this.options.random ? { random: this.options.random } : {}) });
    const visibleAt = new Date(this.options.clock.now().getTime() + delay * 1000).toISOString();
    await this.settle(() =>
      this.options.store.entities.queueMessage
        .patch({ lane: queue, messageId: item.messageId })
        .set({ visibleAt, leased: false })
        .where((attr, op) => op.eq(attr.receiveCount, item.receiveCount))
        .go(),
    );
  }

  /** The dead letter is written before the message is removed: a crash in between leaves a copy, never nothing. */
  private async deadLetter(queue: QueueName, item: QueueMessageItem): Promise<void> {
    const { queueMessage } = this.options.store.entities;
    await queueMessage.put({ ...item, lane: deadLetterLane(queue), leased: false }).go();
    await this.settle(() =>
      queueMessage
        .delete({ lane: queue, messageId: item.messageId })
        .where((attr, op) => op.eq(attr.receiveCount, item.receiveCount))
        .go(),
    );
    console.error(`local queue ${queue}: message ${item.messageId} dead-lettered after ${item.receiveCount} receives`);
    this.published.get(queue)?.delete(item.messageId);
    (this.deadLetters[queue] ??= []).push({ id: item.messageId, body: JSON.parse(item.body) as unknown });
  }
}
