import { effectiveRegions, PROBE_REGIONS, readOutboundConfig, type OutboundConfig, type ProbeRegion } from '../checks/outboundSchema.js';
import { readCheckById } from '../checks/repository.js';
import type { CheckLatencyWarning, CheckSslExpiryWarning } from '../checks/events.js';
import type { Deps } from '../deps.js';
import { runProbe, type HttpProbeConfig, type ProbeDeps } from '../outbound/probe.js';
import type { CheckItem } from '../store/entities/check.js';
import { recordRollups } from './rollups.js';
import { foldRound, hasAllRegions, pendingRoundsBefore, reportToRound } from './rounds.js';
import { roundStartOf, type StatusFlip } from './rules.js';
import { recordRun, toProbeRun } from './runs.js';
import type { ProbeRun } from './schema.js';
import { sendWarnings, warningsFor } from './warnings.js';

export type ProbeTarget = { checkId: number; region: string };

/**
 * Seams for tests and for the runtimes. `allowLoopback` defaults to the configuration's
 * VIGIL_PROBE_ALLOW_PRIVATE (off unless set; never set on AWS).
 */
export type RunProbeOptions = ProbeDeps;

export type ProbeReport =
  | { ran: false; reason: 'CHECK_NOT_FOUND' | 'NOT_OUTBOUND' | 'PAUSED' | 'NO_CONFIG' | 'REGION_NOT_CONFIGURED' }
  | { ran: true; run: ProbeRun; roundAt: string; flips: StatusFlip[]; warnings: (CheckLatencyWarning | CheckSslExpiryWarning)[] };

const isRegion = (value: string): value is ProbeRegion => (PROBE_REGIONS as readonly string[]).includes(value);

export const toHttpProbeConfig = (config: OutboundConfig): HttpProbeConfig => ({
  url: config.url,
  method: config.method,
  ...(config.customHeaders ? { customHeaders: config.customHeaders } : {}),
  timeoutMs: config.timeoutMs,
  expectedStatusMin: config.expectedStatusMin,
  expectedStatusMax: config.expectedStatusMax,
  followRedirects: config.followRedirects,
  maxRedirects: config.maxRedirects,
  blockHttpDowngrade: config.blockHttpDowngrade,
});

/**
 * One scheduled probe of one check from one region (the body of the probe Lambda, and of the
 * local scheduler's runner): probe through the SSRF-guarded client, store the run record and the
 * rollups, report into the round, send latency/SSL warnings past their cooldown, and fold every
 * round that is ready into the check's status. A stale schedule (check gone, paused, no longer
 * outbound, region removed) does nothing. Safe to run twice: a repeated report changes no round.
 */
export async function runProbeForRegion(deps: Deps, target: ProbeTarget, options: RunProbeOptions = {}): Promise<ProbeReport> {
  const now = deps.clock.now();
  const check = await readCheckById(deps, target.checkId);
  if (!check) return { ran: false, reason: 'CHECK_NOT_FOUND' };
  if (check.checkMode !== 'OUTBOUND') return { ran: false, reason: 'NOT_OUTBOUND' };
  if (check.status === 'PAUSED') return { ran: false, reason: 'PAUSED' };
  const config = readOutboundConfig(check.outbound);
  if (!config) return { ran: false, reason: 'NO_CONFIG' };
  const regions = effectiveRegions(config, deps.config.homeRegion);
  if (!isRegion(target.region) || !regions.includes(target.region)) return { ran: false, reason: 'REGION_NOT_CONFIGURED' };
  const region = target.region;

  const result = await runProbe(toHttpProbeConfig(config), { allowLoopback: deps.config.probeAllowPrivate, ...options });
  const roundAt = roundStartOf(now, check.intervalSeconds);
  const [run, round] = await Promise.all([
    recordRun(deps, { checkId: check.checkId, workspaceId: check.workspaceId, region, startedAt: now, roundAt, result }),
    reportToRound(deps, check, roundAt, region, result.ok),
    recordRollups(deps, check.checkId, now, { ok: result.ok, latencyMs: result.latencyMs, gotResponse: result.statusCode !== null }),
  ]);
  const warnings = await sendWarnings(deps, check, region, warningsFor(result, config, now), now);
  const flips = await foldReadyRounds(deps, check, roundAt, round.evaluatedAt === undefined && hasAllRegions(round, regions) ? round : null, now);
  return { ran: true, run: toProbeRun(run), roundAt, flips, warnings };
}

/** Earlier rounds a region never completed are folded first (a later round has started), then this one if complete. */
async function foldReadyRounds(deps: Deps, check: CheckItem, roundAt: string, complete: Awaited<ReturnType<typeof reportToRound>> | null, now: Date): Promise<StatusFlip[]> {
  const flips: StatusFlip[] = [];
  const rounds = await pendingRoundsBefore(deps, check.checkId, roundAt);
  if (complete) rounds.push(complete);
  for (const round of rounds) {
    const flip = await foldRound(deps, check.token, round, now);
    if (flip) flips.push(flip);
  }
  return flips;
}
