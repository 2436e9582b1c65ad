import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { Counter, Gauge, Registry } from 'prom-client';
import { deadLetterLane, LocalQueue } from '../adapters/local/queue.js';
import type { Deps } from '../deps.js';
import type { Store } from '../store/service.js';
import { QUEUE_NAMES } from '../ports/index.js';
import { lastSweep } from './sweepTiming.js';
import type { Exposition } from './workspace.js';

/**
 * Figures no store read could give cheaply, counted in the process that serves them. Keyed by the
 * runtime's Deps, so each runtime (and each test context) counts its own.
 */
export type InstallCounters = { pings: Record<PingOutcome, number> };
export type PingOutcome = 'accepted' | 'rejected';

const counters = new WeakMap<Deps, InstallCounters>();

export function installCounters(deps: Deps): InstallCounters {
  let found = counters.get(deps);
  if (!found) counters.set(deps, (found = { pings: { accepted: 0, rejected: 0 } }));
  return found;
}

/**
 * The install's own health in the text format (`GET /metrics`). What each figure means on each
 * runtime is in the help text and docs/guide/metrics.md; in short: the sweep figures hold on both, the queue
 * and ping figures are the embedded runtime's (on AWS, SQS, API Gateway and Lambda publish them
 * to CloudWatch, and the API Lambda that serves this route sees no pings).
 */
export async function installMetrics(deps: Deps): Promise<Exposition> {
  const registry = new Registry();
  const now = deps.clock.now();
  const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers: [registry] });

  const sweep = await lastSweep(deps);
  if (sweep) {
    gauge('vigil_sweep_last_duration_seconds', 'Wall time of the last evaluator sweep (all steps).').set(sweep.durationMs / 1000);
    gauge('vigil_sweep_last_run_timestamp_seconds', 'When the last evaluator sweep ran (its captured instant), Unix seconds.').set(Date.parse(sweep.at) / 1000);
    gauge('vigil_sweep_last_failed_steps', 'Steps of the last evaluator sweep that failed (retried by the next one).').set(sweep.failedSteps);
  }

  if (deps.queue instanceof LocalQueue) {
    const pings = new Counter({
      name: 'vigil_pings_total',
      help: 'Pings this server answered since it started: accepted (2xx) or rejected (4xx/5xx: unknown token, too large, rate limited).',
      labelNames: ['outcome'],
      registers: [registry],
    });
    const counted = installCounters(deps).pings;
    pings.inc({ outcome: 'accepted' }, counted.accepted);
    pings.inc({ outcome: 'rejected' }, counted.rejected);

    const depth = gauge('vigil_queue_messages', `Messages in a queue: waiting, in flight or delayed for a retry (counted up to ${QUEUE_COUNT_CAP}).`, ['queue']);
    const age = gauge('vigil_queue_oldest_message_age_seconds', 'Age of the oldest message in a queue (0 when empty).', ['queue']);
    const dead = gauge('vigil_queue_dead_letters', `Messages parked in the dead-letter queue after their last receive (counted up to ${QUEUE_COUNT_CAP}).`, ['queue']);
    const lanes = deps.queue.store;
    const local = deps.queue;
    await Promise.all(
      QUEUE_NAMES.map(async (queue) => {
        const [waiting, parked, oldest] = await Promise.all([laneSize(lanes, queue), laneSize(lanes, deadLetterLane(queue)), oldestSentAt(lanes, queue)]);
        // With what was handed to this process's consumer and is not yet settled (never in the store:
        // docs/adr/0017-status-changes-skip-the-local-queue.md), a flip's message among them.
        const handed = local.handedOff(queue);
        depth.set({ queue }, waiting + handed.count);
        dead.set({ queue }, parked);
        const oldestAt = Math.min(oldest === undefined ? Number.POSITIVE_INFINITY : Date.parse(oldest), handed.oldestAt?.getTime() ?? Number.POSITIVE_INFINITY);
        age.set({ queue }, Number.isFinite(oldestAt) ? Math.max(0, (now.getTime() - oldestAt) / 1000) : 0);
      }),
    );
  }
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/** Where a queue's count stops: a scrape of a badly backed-up queue reads at most this many items. */
export const QUEUE_COUNT_CAP = 10_000;

/** A COUNT query over the lane's partition (no items back), stopping at the cap: past it, "at least". */
async function laneSize(store: Store, lane: string): Promise<number> {
  const params = store.entities.queueMessage.query.byId({ lane }).params() as QueryCommandInput;
  let total = 0;
  let startKey: QueryCommandInput['ExclusiveStartKey'];
  do {
    const page = await store.client.send(new QueryCommand({ ...params, Select: 'COUNT', Limit: QUEUE_COUNT_CAP - total, ExclusiveStartKey: startKey }));
    total += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey && total < QUEUE_COUNT_CAP);
  return total;
}

/** Message ids are ULIDs of the send time, so the partition's first item is the oldest message. */
async function oldestSentAt(store: Store, lane: string): Promise<string | undefined> {
  const first = await store.entities.queueMessage.query.byId({ lane }).go({ limit: 1 });
  return first.data[0]?.sentAt;
}
