import { PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { Deps } from '../deps.js';
import { claimConfirmInput, incidentEventPutInput } from '../incidents/timelineItems.js';
import type { IncidentStamp } from '../signals/streamEvents.js';
import { broadcast, incidentEvent } from '../signals/streamEvents.js';
import { isConditionalFailure } from '../store/conditional.js';
import { claimDelivery, claimOwner, isClaimLive } from './deliveryClaim.js';

/**
 * A delivery whose lasting record is its own claim: an incident alert's ALERT_SENT entry, written
 * before the send with a `claim` on it, confirmed by removing the claim after the send, deleted
 * if the send failed. The lock item the other deliveries take (core/alerting/deliveryClaim.ts)
 * cost a put and a delete, and "already sent?" a get under it: four requests per delivery, where
 * this is two (the put, the confirm). In a mass outage every flip has one or two deliveries.
 * Everything else holds as with the lock: one worker sends at a time, a recorded send is never
 * repeated, an orphan claim (a crashed worker) is taken over once its lease has lapsed.
 */
export type RecordClaim = {
  /** Claims the delivery: `taken` (send it, then confirm or release), `sent` (recorded before), `held` (another worker is on it). */
  take(now: Date, summary: string): Promise<{ outcome: 'taken'; confirm(): Promise<void>; release(): Promise<void> } | { outcome: 'sent' | 'held' }>;
};

/** The ALERT_SENT entry `key` of `incident` as a record claim; it reads `recorded`, or the delivery's summary. */
export function timelineRecordClaim(deps: Pick<Deps, 'store' | 'storeOwnedSince' | 'broadcaster'>, incident: IncidentStamp, key: string, recorded?: string): RecordClaim {
  const entity = deps.store.entities.incidentEvent;
  const address = { incidentId: incident.incidentId, eventKey: key };
  const owned = (owner: string) => ({
    outcome: 'taken' as const,
    confirm: async () => {
      try {
        await deps.store.hot.send(new UpdateItemCommand(claimConfirmInput(deps.store.table, incident.incidentId, key, owner)));
      } catch (err) {
        // Its lease ran out mid-send and another worker took it over: that one confirms.
        if (isConditionalFailure(err)) return;
        throw err;
      }
      await broadcast(deps, [incidentEvent(incident, 'timeline')]);
    },
    release: async () => {
      try {
        await entity
          .delete(address)
          .where((attr, op) => op.eq(attr.claim, owner))
          .go();
      } catch (err) {
        if (!isConditionalFailure(err)) throw err;
      }
    },
  });
  return {
    async take(now, summary) {
      const message = recorded ?? summary;
      const owner = claimOwner(now);
      const at = now.toISOString();
      // Unique is enough: the timeline is ordered by time, the id only breaks ties (core/store/counters.ts idBlocks).
      const eventId = await deps.store.nextIdFromBlock('incidentEvent');
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          // The put and the confirm are every delivery's; they go as plain requests (core/incidents/timelineItems.ts).
          const entry = { ...address, eventId, workspaceId: incident.workspaceId, type: 'ALERT_SENT' as const, message, occurredAt: at, claim: owner, createdAt: at };
          await deps.store.hot.send(new PutItemCommand(incidentEventPutInput(deps.store.table, entry)));
          return owned(owner);
        } catch (err) {
          if (!isConditionalFailure(err)) throw err;
        }
        const existing = (await entity.get(address).go({ consistent: true })).data;
        // Released between the two requests: try the put again.
        if (!existing) continue;
        if (existing.claim === undefined) return { outcome: 'sent' };
        if (isClaimLive(deps, existing.claim, existing.createdAt, now)) return { outcome: 'held' };
        try {
          await entity
            .patch(address)
            .set({ claim: owner, message, occurredAt: at, createdAt: at })
            .where((attr, op) => op.eq(attr.claim, existing.claim ?? ''))
            .go();
          return owned(owner);
        } catch (err) {
          if (!isConditionalFailure(err)) throw err;
          return { outcome: 'held' };
        }
      }
      return { outcome: 'held' };
    },
  };
}

/**
 * A delivery whose lasting record lives apart from its claim (a warning's alertSent marker): the
 * claim is a lock item for the length of the send (core/alerting/deliveryClaim.ts), and the record
 * is asked and written under it. Asked only under the claim, "already sent?" is one read per
 * delivery instead of one before and one after; a claim held by another worker is the rare case,
 * and only it asks the record first.
 */
export function lockedRecordClaim(
  deps: Pick<Deps, 'store' | 'storeOwnedSince'>,
  key: string,
  record: { isRecorded: () => Promise<boolean>; write: (summary: string) => Promise<void> },
): RecordClaim {
  return {
    async take(now, summary) {
      const unlock = await claimDelivery(deps, key, now);
      if (!unlock) return { outcome: (await record.isRecorded()) ? 'sent' : 'held' };
      let locked = true;
      const release = async () => {
        if (!locked) return;
        locked = false;
        await unlock();
      };
      try {
        // Under the claim: a worker that finished this very delivery has recorded it before releasing.
        if (await record.isRecorded()) {
          await release();
          return { outcome: 'sent' };
        }
      } catch (err) {
        await release();
        throw err;
      }
      const confirm = async () => {
        try {
          await record.write(summary);
        } finally {
          await release();
        }
      };
      return { outcome: 'taken', confirm, release };
    },
  };
}
