import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { Deps } from '../deps.js';
import type { IncidentItem } from '../store/entities/incident.js';
import type { IncidentEpisodeItem } from '../store/entities/incidentEpisode.js';
import { isConditionalFailure, retryOnConflict, StaleRead } from '../store/conditional.js';
import { getStoredItem } from '../store/storedItems.js';
import { storeMemo } from '../store/storeMemo.js';
import { episodeClaimInput, episodeReleaseInput, episodeTableKey, type EpisodeRef } from './incidentItems.js';
import { HttpError } from '../http/errors.js';
import { applyIncidentInput, forgetWrittenIncident, insertIncident, readIncident, writtenIncident, type NewIncident } from './repository.js';
import { isRecovery, type IncidentInput, type ResolveCause, type Severity } from './transition.js';

/** `service` for SERVICE_DOWN; one key per reported dependency. */
export const episodeKeyFor = (incident: { reason: IncidentItem['reason']; dependencyId?: number | undefined }): string =>
  incident.reason === 'DEPENDENCY_DOWN' ? `dep#${incident.dependencyId ?? 0}` : 'service';

/**
 * The episode's incident is claimed but not written yet: its opener is between its two writes (or
 * died there, and its redelivery heals the claim). A queue consumer retries the message; a
 * synchronous caller (the intake route) tells its sender to send again.
 */
export class IncidentStillOpening extends Error {
  constructor(
    readonly incidentId: number,
    checkId: number,
  ) {
    super(`incident ${incidentId} of check ${checkId} is still being opened; retry later`);
  }
}

const MAX_ATTEMPTS = 8;

/**
 * The incident each episode had open when this process last saw it. A flip's DOWN and its recovery
 * each read the episode, then its incident; with the incident remembered, one consistent read of
 * the incident does. Found open, it is still the episode's: the episode lets go of an incident only
 * after it is resolved (`releaseEpisode` is called on resolved incidents alone, and is conditional
 * on the id), an incident never reopens, and the claim came before the incident was written.
 * Anything else (resolved, absent) reads the episode as before. At most 50,000 (a key and an id
 * per open incident: a few MB).
 */
const openIncidents = storeMemo<string, number>(50_000);
const episodeName = (episode: EpisodeRef): string => `${episode.checkId}#${episode.episodeKey}`;

function rememberOpen(deps: Deps, episode: EpisodeRef, incidentId: number): void {
  openIncidents.set(deps.store, episodeName(episode), incidentId);
}

/** The episode's open incident, read consistently, when this process remembers it and it is still open. */
async function rememberedOpen(deps: Deps, episode: EpisodeRef): Promise<IncidentItem | undefined> {
  const name = episodeName(episode);
  const incidentId = openIncidents.get(deps.store, name);
  if (incidentId === undefined) return undefined;
  const incident = await readIncident(deps, incidentId);
  if (incident && incident.state !== 'RESOLVED') return incident;
  openIncidents.delete(deps.store, name);
  return undefined;
}

/**
 * The raise from the episode's incident as this process last wrote it, with no read before it
 * (`writtenIncident`, core/incidents/repository.ts). Its write is conditional on the revision
 * remembered: written since by anyone else, it is refused, and `applyIncidentInput` reads the
 * incident and raises from that, as the read path would have. Found resolved or gone by then, the
 * episode's own path must run (its release, the watermark, a wait for recovery): both are
 * forgotten and the caller reads the episode as before. Undefined when nothing is remembered.
 */
async function raiseWritten(deps: Deps, episode: EpisodeRef, raise: Extract<IncidentInput, { type: 'raise' }>, now: Date): Promise<IncidentItem | undefined> {
  const incidentId = openIncidents.get(deps.store, episodeName(episode));
  const written = incidentId === undefined ? undefined : writtenIncident(deps, incidentId);
  if (incidentId === undefined || !written) return undefined;
  try {
    const { incident } = await applyIncidentInput(deps, incidentId, raise, now, written);
    if (incident.state !== 'RESOLVED') return incident;
  } catch (err) {
    if (!(err instanceof HttpError && err.status === 404)) throw err;
  }
  forgetWrittenIncident(deps, incidentId);
  openIncidents.delete(deps.store, episodeName(episode));
  return undefined;
}

/** The episode, read consistently: a plain get, returned as the entity's get returns it (incidentItems.test.ts). */
const readEpisode = (deps: Deps, episode: EpisodeRef): Promise<IncidentEpisodeItem | undefined> =>
  getStoredItem<IncidentEpisodeItem>(deps.store, deps.store.entities.incidentEpisode, episodeTableKey(episode));

/**
 * "The check (or its dependency) went down at `at`": opens the episode's incident, or raises the
 * open one to `severity` (and, with `retitle`, gives it `fields.title`). Exactly one incident per episode however many workers deliver the news
 * at once: the episode item's `openIncidentId` is claimed with a conditional write, and whoever
 * finds a claim without its incident writes that same incident id (attribute_not_exists), so a
 * crash between the two steps heals on redelivery. A message older than the last recovery
 * (`closedAt`) is stale and opens nothing, and so is any while the episode awaits recovery after
 * a manual resolve (`awaitingRecoverySince`): that outage has had its incident.
 *
 * `wasUp`: the check was up before this change (its worker holds the change's `from`), so its
 * episode has, but for a reordered or repeated message, nothing open: the claim goes first, and
 * the episode is read only when the claim is refused. The claim's condition is what the read would
 * have checked (nothing claimed, no wait for recovery, no recovery at or after `at`), so an
 * accepted claim opens exactly what the read's path would have; a refused one costs its request,
 * and the incident id it took is left unused (a gap, as a lost race leaves).
 */
export async function openOrRaiseEpisode(
  deps: Deps,
  episode: EpisodeRef,
  fields: NewIncident,
  open: { severity: Severity; at: string; message: string; retitle?: boolean },
  now: Date,
  { wasUp = false }: { wasUp?: boolean } = {},
): Promise<IncidentItem | undefined> {
  let candidateId: number | undefined;
  const raise = { type: 'raise' as const, severity: open.severity, at: open.at, ...(open.retitle ? { title: fields.title } : {}) };
  // The incident as this process last wrote it (its opening, the escalation planned after step 0):
  // the raise starts from it unread, its write conditional on that revision.
  const raisedUnread = await raiseWritten(deps, episode, raise, now);
  if (raisedUnread) return raisedUnread;
  const known = await rememberedOpen(deps, episode);
  // The incident was read consistently just now: the raise starts from it, not from a second get
  // (its write is conditional on the revision read, so a change in between reads again).
  if (known) return (await applyIncidentInput(deps, known.incidentId, raise, now, known)).incident;
  const claimAndOpen = async (incidentId: number): Promise<IncidentItem> => {
    // The entity's update as a plain request (core/incidents/incidentItems.ts), on the same condition.
    await deps.store.hot.send(new UpdateItemCommand(episodeClaimInput(deps.store.table, episode, incidentId, fields.workspaceId, open.at)));
    const created = await insertIncident(deps, incidentId, fields, { type: 'open', ...open }, now);
    if (!created) throw new StaleRead('another worker wrote the incident just claimed');
    rememberOpen(deps, episode, incidentId);
    return created;
  };
  return retryOnConflict(
    async (attempt) => {
      // Refused, the claim throws a conditional failure, and the next attempt reads the episode.
      if (attempt === 1 && wasUp) return claimAndOpen((candidateId ??= await deps.store.nextId('incident')));
      const current = await readEpisode(deps, episode);
      const claimed = current?.openIncidentId;
      if (claimed !== undefined) {
        const incident = await readIncident(deps, claimed);
        if (!incident) {
          const created = await insertIncident(deps, claimed, fields, { type: 'open', ...open }, now);
          if (created) return created;
          throw new StaleRead('another worker wrote the claimed incident');
        }
        if (incident.state === 'RESOLVED') {
          // Resolved but the pointer survived (a crash between the two writes): finish the release.
          await releaseResolvedEpisode(deps, episode, incident, now);
          throw new StaleRead('released a resolved episode');
        }
        rememberOpen(deps, episode, claimed);
        return (await applyIncidentInput(deps, claimed, raise, now, incident)).incident;
      }
      if (current?.awaitingRecoverySince !== undefined) return undefined;
      if (current?.closedAt !== undefined && current.closedAt >= open.at) return undefined;
      candidateId ??= await deps.store.nextId('incident');
      return claimAndOpen(candidateId);
    },
    {
      attempts: MAX_ATTEMPTS,
      onExhausted: () => new Error(`could not settle the incident episode of check ${episode.checkId} (${episode.episodeKey})`),
    },
  );
}

/**
 * "It recovered at `at`" (or, for the other causes, "it is over"): resolves the episode's open
 * incident and moves the watermark, so a late redelivery of the older "went down" message cannot
 * open a new one. With nothing open, a recovery ends a wait for recovery after a manual resolve.
 */
export async function resolveEpisode(deps: Deps, episode: EpisodeRef, resolve: { cause: ResolveCause; at: string }, now: Date): Promise<IncidentItem | undefined> {
  const known = await rememberedOpen(deps, episode);
  const current = known ? undefined : await readEpisode(deps, episode);
  const claimed = known?.incidentId ?? current?.openIncidentId;
  let resolved: IncidentItem | undefined;
  if (claimed !== undefined) {
    const incident = known ?? (await readIncident(deps, claimed));
    // Claimed but not written yet: the opener is in flight (or crashed and will be redelivered).
    if (!incident) throw new IncidentStillOpening(claimed, episode.checkId);
    if (incident.startedAt > resolve.at) return undefined; // the recovery predates this episode
    resolved = (await applyIncidentInput(deps, claimed, { type: 'resolve', ...resolve }, now, incident)).incident;
    openIncidents.delete(deps.store, episodeName(episode));
    await releaseEpisode(deps, episode, claimed, resolve.at);
  } else {
    await raiseWatermark(deps, episode, resolve.at);
    const recovered = isRecovery(resolve.cause);
    const held = current?.awaitingRecoverySince;
    if (recovered && held !== undefined && held < resolve.at) await endAwaitingRecovery(deps, episode, resolve.at);
  }
  return resolved;
}

/**
 * Clears the pointer if it still names `incidentId` (after a resolution by any path). With
 * `heldSince` (the start of the outage a person resolved by hand) the episode then awaits recovery.
 */
export async function releaseEpisode(deps: Deps, episode: EpisodeRef, incidentId: number, closedAt: string, heldSince?: string): Promise<void> {
  try {
    // The entity's update as a plain request (core/incidents/incidentItems.ts): one per recovery.
    await deps.store.hot.send(new UpdateItemCommand(episodeReleaseInput(deps.store.table, episode, incidentId, closedAt, heldSince)));
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

/**
 * The episode's incident is resolved: the episode ends with it. When a person resolved it, the
 * outage may go on, and the same outage must not open a second incident: the episode stays closed
 * until the check (or dependency) recovers after the outage began; that recovery resolves nothing.
 */
export async function releaseResolvedEpisode(deps: Deps, episode: EpisodeRef, incident: IncidentItem, now: Date): Promise<void> {
  const heldSince = (await resolvedByHand(deps, incident.incidentId)) ? incident.startedAt : undefined;
  await releaseEpisode(deps, episode, incident.incidentId, incident.resolvedAt ?? now.toISOString(), heldSince);
}

/**
 * Ends the wait for recovery when `at` is after the outage it was about began: a recovery, or
 * monitoring restarting on resume. Conditional on the wait read, so a newer one is left alone.
 */
export async function endAwaitingRecovery(deps: Deps, episode: EpisodeRef, at: string): Promise<void> {
  try {
    await deps.store.entities.incidentEpisode
      .patch(episode)
      .remove(['awaitingRecoverySince'])
      .where((attr, op) => op.lt(attr.awaitingRecoverySince, at))
      .go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

/** Whether a person resolved the incident: its RESOLVED event names a user, an API key or a signed alert link. */
async function resolvedByHand(deps: Deps, incidentId: number): Promise<boolean> {
  const resolved = (await deps.store.entities.incidentEvent.get({ incidentId, eventKey: 'resolved' }).go({ consistent: true })).data;
  return resolved?.actorUserId !== undefined || resolved?.actorApiKeyId !== undefined || resolved?.actorLink !== undefined;
}

async function raiseWatermark(deps: Deps, episode: EpisodeRef, closedAt: string): Promise<void> {
  try {
    await deps.store.entities.incidentEpisode
      .update(episode)
      .set({ closedAt })
      .where((attr, op) => `${op.notExists(attr.openIncidentId)} AND (${op.notExists(attr.closedAt)} OR ${op.lt(attr.closedAt, closedAt)})`)
      .go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

/** Episodes of a check that have an open incident (strongly consistent: the table, not an index). */
export async function openEpisodesOfCheck(deps: Deps, checkId: number): Promise<(EpisodeRef & { openIncidentId: number })[]> {
  const result = await deps.store.entities.incidentEpisode.query.byCheck({ checkId }).go({ pages: 'all', consistent: true });
  return result.data.flatMap((e) => (e.openIncidentId !== undefined ? [{ checkId: e.checkId, episodeKey: e.episodeKey, openIncidentId: e.openIncidentId }] : []));
}
