import type { Deps } from '../deps.js';
import { knownForBatch, readOncePerBatch } from '../store/batchReads.js';
import { readCheckOfId } from '../store/checkTokens.js';
import type { CheckItem } from '../store/entities/check.js';

/** What an incident alert reads of its check: the name it shows, and whether its alerts are muted. */
export type AlertCheck = Pick<CheckItem, 'checkId' | 'name' | 'muteNotifications'>;

const batchKey = (checkId: number) => `alertCheck#${checkId}`;

/**
 * The check an incident alert is about, deleted ones included (a muted check's incident resolving
 * on deletion stays quiet), read once per queue batch (core/store/batchReads.ts), or as the flip
 * that owed the alert saw it (`knownAlertCheck`).
 */
export function alertCheckOf(deps: Pick<Deps, 'store' | 'batchReads'>, checkId: number): Promise<AlertCheck | undefined> {
  return readOncePerBatch(deps, batchKey(checkId), () => readCheckOfId(deps.store, checkId));
}

/**
 * The check as the write that moved it saw it, from its `check.status_changed` (which the sweep's
 * flips carry): the alerts the incident worker sends for it in this batch read no check. Each
 * alert of a flip read it for its mute, two store requests a flipping check in a mass outage. The
 * mute is then the one the flip's write saw, as the incident's title and severity already are
 * (docs/adr/0015-a-flip-reads-nothing-twice.md); the batch's first message about the check wins,
 * as with any batch read.
 */
export function knownAlertCheck(deps: Pick<Deps, 'batchReads'>, check: AlertCheck): void {
  knownForBatch(deps, batchKey(check.checkId), check);
}
