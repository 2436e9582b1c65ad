import type { Deps } from '../deps.js';
import { alertConnect, type GuardedRequestDeps } from '../outbound/index.js';
import type { AlertChannelItem } from '../store/entities/alertChannel.js';
import { RETRY_BACKOFF } from '../ports/retry.js';
import { readOncePerBatch } from '../store/batchReads.js';
import { readCheckOfId } from '../store/checkTokens.js';
import { isConditionalFailure } from '../store/conditional.js';
import { webhookIdFor } from './alertContent.js';
import { deliverToChannel, lastErrorOf, type ChannelMessage } from './channelsDelivery.js';
import { awaitingConfirmation } from './emailConfirm.js';
import type { RecordClaim } from './recordClaim.js';

export type AlertDispatchOptions = {
  outbound?: GuardedRequestDeps;
  /**
   * The incidents consumer's own send (core/escalation/handOff.ts): a channel that failed within
   * `RECENT_FAILURE_MS` is not tried there but DEFERRED to the alerts queue, whose retries back off.
   * So a channel that hangs costs incident processing one delivery timeout when its failure is
   * found, not one at every incident of a mass outage.
   */
  deferRecentlyFailed?: boolean;
};

/** As long as the alerts queue's retries may still be backing off (core/ports/retry.ts). */
const RECENT_FAILURE_MS = RETRY_BACKOFF.capSeconds * 1000;

/** What happened to one channel. FAILED, IN_FLIGHT and DEFERRED make the message fail (the queue retries it). */
export type ChannelOutcome = {
  channelId: number;
  status: 'SENT' | 'ALREADY_SENT' | 'IN_FLIGHT' | 'DEFERRED' | 'DISABLED' | 'FAILED';
  message: string;
  retryAfterSeconds: number | null;
};

/**
 * One (notification, channel) delivery. `key` names it everywhere (the lasting sent record, the
 * in-flight claim, the webhook-id); `claim` takes it for a send and records it, wherever the
 * notification's kind keeps the record (an incident's timeline, or an alertSent marker).
 */
export type Delivery = {
  key: string;
  /** The channel event type, for the record's wording. */
  event: string;
  /** May sign (an incident alert's links, core/alerting/ackLinks.ts), hence async. */
  compose: (webhookId: string) => ChannelMessage | Promise<ChannelMessage>;
  /** core/alerting/recordClaim.ts: the timeline entry that is its own claim, or a lock beside a marker. */
  claim: RecordClaim;
};

/**
 * Sends one delivery at most once: a recorded send is never repeated, and a claim keeps two
 * copies of the message handled at the same moment from both sending.
 */
export async function deliverOnce(deps: Deps, channel: AlertChannelItem, delivery: Delivery, now: Date, options: AlertDispatchOptions): Promise<ChannelOutcome> {
  const outcome = (status: ChannelOutcome['status'], message: string, retryAfterSeconds: number | null = null): ChannelOutcome => ({
    channelId: channel.channelId,
    status,
    message,
    retryAfterSeconds,
  });
  // Not a failure to retry: the address has not said yes yet (alerting/emailConfirm.ts).
  if (awaitingConfirmation(channel)) return outcome('DISABLED', 'the e-mail address has not confirmed yet');
  if (options.deferRecentlyFailed && channel.lastErrorAt !== undefined && now.getTime() - Date.parse(channel.lastErrorAt) < RECENT_FAILURE_MS) {
    return outcome('DEFERRED', 'left to the alerts queue: the channel failed recently');
  }
  const summary = `Alert sent to ${channel.type} channel "${channel.name}" (${delivery.event})`;
  const claim = await delivery.claim.take(now, summary);
  if (claim.outcome !== 'taken') return claim.outcome === 'sent' ? outcome('ALREADY_SENT', 'already delivered') : outcome('IN_FLIGHT', 'another worker is delivering it now');
  let confirmed = false;
  try {
    return await send(deps, channel, delivery, now, options, outcome, async () => {
      await claim.confirm();
      confirmed = true;
    });
  } finally {
    if (!confirmed) await claim.release();
  }
}

/** The send under a claim, and what its answer means: recorded, the channel disabled (410), or a failure to retry. */
async function send(
  deps: Deps,
  channel: AlertChannelItem,
  delivery: Delivery,
  now: Date,
  options: AlertDispatchOptions,
  outcome: (status: ChannelOutcome['status'], message: string, retryAfterSeconds?: number | null) => ChannelOutcome,
  record: () => Promise<void>,
): Promise<ChannelOutcome> {
  try {
    // Kept-alive sockets per approved destination unless the caller brings its own connector: a
    // mass outage sends thousands of alerts to a handful of receivers (core/outbound/pool.ts).
    const result = await deliverToChannel(deps, channel, await delivery.compose(webhookIdFor(delivery.key)), { connect: alertConnect, ...options.outbound });
    // The crash window: a worker that dies here, after the send and before the record, leaves the
    // message to come back (after the visibility timeout) and send again. No store write can close
    // it, since the receiver is not ours; the retry carries the same webhook-id, so the receiver
    // can drop the copy (docs/guarantees.md).
    if (result.ok) {
      await record();
      return outcome('SENT', result.message);
    }
    // 410 Gone means the receiver wants no more deliveries.
    if (result.statusCode === 410 && channel.type !== 'EMAIL') {
      await disableChannel(deps, channel, now);
      console.warn(`alert channel ${channel.channelId} answered 410 Gone and is now disabled`);
      return outcome('DISABLED', 'the endpoint answered 410 Gone; channel disabled');
    }
    const honoured = result.statusCode === 429 || result.statusCode === 503 ? result.retryAfterSeconds : null;
    // The log gets the whole story; the channel, which the workspace reads, gets words naming no address.
    const failed = outcome('FAILED', `${result.failureReason ?? 'FAILED'}: ${result.message}`, honoured);
    await noteLastError(deps, channel, lastErrorOf(result), now);
    return failed;
  } catch (err) {
    return outcome('FAILED', err instanceof Error ? err.message : String(err));
  }
}

/** Deleted checks count too: a muted check's incident resolving on deletion stays quiet. */
export async function readCheckEvenDeleted(deps: Deps, checkId: number) {
  return readCheckOfId(deps.store, checkId);
}

export async function enabledChannels(deps: Deps, workspaceId: number): Promise<AlertChannelItem[]> {
  const result = await readOncePerBatch(deps, `channels#${workspaceId}`, () => deps.store.entities.alertChannel.query.byWorkspace({ workspaceId }).go({ pages: 'all' }));
  return result.data.filter((channel) => channel.enabled && channel.workspaceId === workspaceId).sort((a, b) => a.channelId - b.channelId);
}

const GONE = 'The endpoint answered 410 Gone: it asked for no more deliveries';

/** A patch, so a channel deleted meanwhile is not written back; one already disabled is left as it is. */
async function disableChannel(deps: Deps, channel: AlertChannelItem, now: Date): Promise<void> {
  const at = now.toISOString();
  try {
    await deps.store.entities.alertChannel
      .patch({ channelId: channel.channelId })
      .set({ enabled: false, disabledReason: GONE, lastError: GONE, lastErrorAt: at, updatedAt: at })
      .where((attr, op) => op.eq(attr.enabled, true))
      .go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
  // The only write a batch's own handling makes to what it reads once per batch: the batch's later
  // messages must see the channel disabled, not the enabled one read before (core/store/batchReads.ts).
  deps.batchReads?.clear();
}

/**
 * Every failed attempt leaves its reason on the channel, so once a message is dead-lettered the
 * channel shows why. Best effort: failing to note it must not turn into another delivery attempt.
 * `updatedAt` stays: it is the time of the user's last change.
 */
async function noteLastError(deps: Deps, channel: AlertChannelItem, message: string, now: Date): Promise<void> {
  try {
    await deps.store.entities.alertChannel
      .patch({ channelId: channel.channelId })
      .set({ lastError: message.slice(0, 500), lastErrorAt: now.toISOString() })
      .go();
  } catch (err) {
    if (!isConditionalFailure(err)) console.warn(`alert channel ${channel.channelId}: could not note the last error`, err);
  }
}
