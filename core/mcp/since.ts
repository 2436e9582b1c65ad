import type { CheckStatus } from '../checks/status.js';

/**
 * "Since when is this check in its status?" A check keeps no flip time, so it is read back from
 * what the flip left behind: the signals of a heartbeat job (a DOWN leaves a FAIL, a LATE a
 * SUSPECT, an OK a SUCCESS) or the probe runs of an HTTP check, newest first. The run of evidence
 * that agrees with the status started when the status did; if the evidence runs out before
 * anything disagrees, the answer is only a lower bound, and it says so (`exact: false`).
 */
export type Evidence = { at: string; agrees: boolean | null };

export type Since = { since: string | null; exact: boolean; basis: 'signals' | 'probe runs' | 'incident' | 'created' | 'last change' | 'unknown' };

export type SinceInput = {
  status: CheckStatus;
  mode: 'INBOUND' | 'OUTBOUND';
  createdAt: string;
  updatedAt: string;
  /** Newest first. */
  signals: readonly { type: string; receivedAt: string }[];
  /** Newest first. */
  runs: readonly { lastRunAt: string | null; ok: boolean | null }[];
  /** When the open incident of this episode began, if there is one. */
  incidentStartedAt: string | null;
};

const SIGNAL_OF: Partial<Record<CheckStatus, string>> = { OK: 'SUCCESS', LATE: 'SUSPECT', DOWN: 'FAIL' };
// START and DEPLOYMENT signals say nothing about the status.
const NEUTRAL_SIGNALS = new Set(['START', 'DEPLOYMENT']);

/** The oldest item of the leading run that agrees; null when the newest evidence already disagrees. */
export function leadingRun(evidence: readonly Evidence[]): { since: string; complete: boolean } | null {
  let since: string | null = null;
  for (const item of evidence) {
    if (item.agrees === null) continue;
    if (!item.agrees) return since === null ? null : { since, complete: true };
    since = item.at;
  }
  return since === null ? null : { since, complete: false };
}

export function statusSince(input: SinceInput): Since {
  const { status } = input;
  if (status === 'NEW') return { since: input.createdAt, exact: true, basis: 'created' };
  // A pause or resume leaves no signal; the check's last change is when it happened, unless edited since.
  if (status === 'PAUSED' || status === 'RESUMED') return { since: input.updatedAt, exact: false, basis: 'last change' };

  const found =
    input.mode === 'INBOUND'
      ? leadingRun(input.signals.map((s) => ({ at: s.receivedAt, agrees: NEUTRAL_SIGNALS.has(s.type) ? null : s.type === SIGNAL_OF[status] })))
      : leadingRun(input.runs.flatMap((r) => (r.lastRunAt === null || r.ok === null ? [] : [{ at: r.lastRunAt, agrees: r.ok === (status === 'OK') }])));
  if (found) return { since: found.since, exact: found.complete, basis: input.mode === 'INBOUND' ? 'signals' : 'probe runs' };
  if (input.incidentStartedAt !== null && status !== 'OK') return { since: input.incidentStartedAt, exact: false, basis: 'incident' };
  return { since: null, exact: false, basis: 'unknown' };
}
