import { effectiveRegions, readOutboundConfig, type ProbeRegion } from '../checks/outboundSchema.js';
import { statusChangeOwed } from '../checks/events.js';
import { itemKey, relayAfterWrite } from '../outbox/index.js';
import { causeOf, nextCheckStatus, type CheckObservation } from '../checks/status.js';
import type { Deps } from '../deps.js';
import type { CheckItem } from '../store/entities/check.js';
import type { ProbeRoundItem } from '../store/entities/probeRound.js';
import { isConditionalFailure, retryOnConflict } from '../store/conditional.js';
import { windowEffects } from '../windows/holds.js';
import { evaluateRound, type StreakState, type RoundResults, type StatusFlip } from './rules.js';

/**
 * Rounds: every region's run reports into its round item, and a round is folded into the check's
 * status once, either when all of the check's regions have reported or, for a round a region
 * never reported to, when a report of a later round arrives (so a region that is down costs at
 * most one round of delay, never a stuck status). Folding is a conditional write on the check
 * (status, last folded round): regions finishing together race, one write wins, and only the
 * winner publishes the flip. A round reported after a later one was folded is ignored.
 */

const ROUND_TTL_SECONDS = 2 * 86_400;
const FOLD_ATTEMPTS = 5;
// Pending rounds older than this are not worth folding any more (they are past their TTL soon).
const PENDING_LOOKBACK_MS = 24 * 3_600_000;

/** Adds the region's verdict to the round; returns the round as it is now. */
export async function reportToRound(deps: Deps, check: Pick<CheckItem, 'checkId' | 'workspaceId'>, roundAt: string, region: ProbeRegion, ok: boolean): Promise<ProbeRoundItem> {
  const written = await deps.store.entities.probeRound
    .update({ checkId: check.checkId, roundAt })
    .add(ok ? { okRegions: [region] } : { failedRegions: [region] })
    .set({ workspaceId: check.workspaceId, expiresAt: Math.floor(Date.parse(roundAt) / 1000) + ROUND_TTL_SECONDS })
    .go({ response: 'all_new' });
  return written.data as ProbeRoundItem;
}

export const resultsOf = (round: ProbeRoundItem, regions: readonly string[]): RoundResults => ({
  regions,
  ok: round.okRegions ?? [],
  failed: round.failedRegions ?? [],
});

export const hasAllRegions = (round: ProbeRoundItem, regions: readonly string[]): boolean => {
  const reported = new Set([...(round.okRegions ?? []), ...(round.failedRegions ?? [])]);
  return regions.every((region) => reported.has(region));
};

/** Rounds before `roundAt` that were never folded (a region missed them), oldest first. */
export async function pendingRoundsBefore(deps: Deps, checkId: number, roundAt: string): Promise<ProbeRoundItem[]> {
  const from = new Date(Date.parse(roundAt) - PENDING_LOOKBACK_MS).toISOString();
  const result = await deps.store.entities.probeRound.query
    .byCheck({ checkId })
    .between({ roundAt: from }, { roundAt })
    .where((attr, op) => op.notExists(attr.evaluatedAt))
    .go({ pages: 'all', consistent: true });
  return result.data.filter((round) => round.roundAt < roundAt).sort((a, b) => a.roundAt.localeCompare(b.roundAt));
}

const stateOf = (check: CheckItem): StreakState => ({
  status: check.status,
  failStreak: check.probeFailStreak ?? 0,
  okStreak: check.probeOkStreak ?? 0,
  streakStatus: check.probeStreakStatus,
});

/**
 * Folds one round into the check with a conditional write on what was read; returns the flip it
 * made, or null (nothing changed, the round was already folded or superseded, the check is paused,
 * deleted or no longer outbound). Then marks the round folded. Losing every race throws and
 * leaves the round unfolded: the next report of a later round folds it.
 */
export async function foldRound(deps: Deps, token: string, round: ProbeRoundItem, now: Date): Promise<StatusFlip | null> {
  const flip = await retryOnConflict(() => foldOnce(deps, token, round, now), { attempts: FOLD_ATTEMPTS, what: `folding probe round ${round.roundAt}` });
  await markFolded(deps, round, now);
  return flip;
}

/** One attempt; a conditional failure means another region (or a pause, an edit) wrote first. */
async function foldOnce(deps: Deps, token: string, round: ProbeRoundItem, now: Date): Promise<StatusFlip | null> {
  const { check: checks } = deps.store.entities;
  const check = (await checks.get({ token }).go({ consistent: true })).data;
  if (!check || check.deletedAt !== undefined || check.checkMode !== 'OUTBOUND' || check.status === 'PAUSED') return null;
  if (check.probeRoundAt !== undefined && check.probeRoundAt >= round.roundAt) return null;
  const config = readOutboundConfig(check.outbound);
  if (!config) return null;
  const results = resultsOf(round, effectiveRegions(config, deps.config.homeRegion));
  let outcome = evaluateRound(stateOf(check), results, config);
  if (outcome.flip?.to === 'DOWN') {
    const effects = await windowEffects(deps, { workspaceId: check.workspaceId, projectId: check.projectId ?? null }, now);
    if (effects.deploymentActive || effects.suppressIncidents) outcome = evaluateRound(stateOf(check), results, config, { holdDown: true });
  }
  const { state, flip } = outcome;
  // The streaks' verdict moves the status through the one status function.
  const observation: CheckObservation | null = flip ? { type: 'probe', verdict: flip.to } : null;
  const transition = observation ? nextCheckStatus(check, observation, now) : null;
  // A flip owes its message in the fold's own write; the relay sends it right after.
  const owed = observation && transition?.statusChange ? statusChangeOwed(check, transition.statusChange, causeOf(observation), now) : undefined;
  let fold = checks.patch({ token }).set({
    probeRoundAt: round.roundAt,
    probeFailStreak: state.failStreak,
    probeOkStreak: state.okStreak,
    probeStreakStatus: state.status,
    ...transition?.changes?.set,
    ...owed?.set,
  });
  if (owed) fold = fold.append({ outbox: owed.entries });
  const written = await fold
    .where((attr, op) =>
      [
        op.eq(attr.status, check.status),
        op.eq(attr.checkMode, 'OUTBOUND'),
        op.notExists(attr.deletedAt),
        check.probeRoundAt === undefined ? op.notExists(attr.probeRoundAt) : op.eq(attr.probeRoundAt, check.probeRoundAt),
      ].join(' AND '),
    )
    .go({ response: 'all_new' });
  const moved = transition?.statusChange;
  if (!observation || !moved) return null;
  const after = written.data as CheckItem;
  // The stream hears the flip from the incidents worker (core/incidents/worker.ts): probe regions post to no WebSocket API.
  await relayAfterWrite(deps, itemKey(checks.get({ token })), after.outbox);
  return flip;
}

async function markFolded(deps: Deps, round: ProbeRoundItem, now: Date): Promise<void> {
  try {
    await deps.store.entities.probeRound
      .patch({ checkId: round.checkId, roundAt: round.roundAt })
      .set({ evaluatedAt: now.toISOString() })
      .where((attr, op) => op.notExists(attr.evaluatedAt))
      .go({ response: 'none' });
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}
