import type { Ctx } from '../context.js';
import { outboundOf, updateCheck } from '../checks/lifecycle.js';
import {
  effectiveRegions,
  mergeOutboundConfig,
  parseOutboundConfig,
  readOutboundConfig,
  toOutboundView,
  type OutboundConfig,
  type OutboundConfigPatch,
} from '../checks/outboundSchema.js';
import { loadCheck } from '../checks/repository.js';
import { draftOf } from '../checks/rules.js';
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { roleAtLeast, type Role } from '../auth/roles.js';
import { authorize } from '../auth/authorize.js';
import type { CheckItem } from '../store/entities/check.js';
import { latestRunsByRegion, listRuns, type RunsQuery } from './runs.js';
import type { OutboundDetails, ProbeRun, ProbeState } from './schema.js';

/** Verbs of the outbound read/update API. Each authorises against the check's workspace first. */

/** An outbound check the caller may act on; inbound, missing, deleted and foreign checks are all 404. */
export async function loadOutboundCheck(ctx: Ctx, checkId: number, minRole: Role): Promise<CheckItem> {
  const check = await loadCheck(ctx, checkId, minRole);
  if (check.checkMode !== 'OUTBOUND') throw notFound('Outbound check');
  return check;
}

/** The latest probe state: the status, its streaks, and each region's newest run. */
export async function probeStateOf(deps: Deps, check: CheckItem, config: OutboundConfig, now: Date): Promise<ProbeState> {
  const fresh = check.probeStreakStatus !== check.status;
  return {
    status: check.status,
    consecutiveFailures: fresh ? 0 : (check.probeFailStreak ?? 0),
    consecutiveSuccesses: fresh ? 0 : (check.probeOkStreak ?? 0),
    lastRoundAt: check.probeRoundAt ?? null,
    regions: await latestRunsByRegion(deps, check.checkId, effectiveRegions(config, deps.config.homeRegion), now),
  };
}

async function detailsOf(deps: Deps, check: CheckItem, now: Date, headerValues: boolean): Promise<OutboundDetails> {
  const config = readOutboundConfig(check.outbound);
  // Never produced by the write paths; a check in this state has no probe to describe.
  if (!config) throw notFound('Outbound configuration');
  return {
    checkId: check.checkId,
    config: toOutboundView(config, deps.config.homeRegion, headerValues),
    state: await probeStateOf(deps, check, config, now),
  };
}

export async function getOutbound(ctx: Ctx, checkId: number): Promise<OutboundDetails> {
  const check = await loadOutboundCheck(ctx, checkId, 'VIEWER');
  const { role } = await authorize(ctx.deps, ctx.actor, check.workspaceId, 'VIEWER');
  return detailsOf(ctx.deps, check, ctx.deps.clock.now(), roleAtLeast(role, 'MEMBER'));
}

/**
 * Changes the probe configuration: absent fields keep their value, `null` clears an optional one
 * (customHeaders, latencyWarnMs, regions). The merged config passes the same schema as on create,
 * and the check update keeps plan limits and probe schedules in step (core/checks/lifecycle.ts).
 */
export async function patchOutbound(ctx: Ctx, checkId: number, patch: OutboundConfigPatch): Promise<OutboundDetails> {
  const check = await loadOutboundCheck(ctx, checkId, 'MEMBER');
  const current = outboundOf(check);
  const config = parseOutboundConfig(mergeOutboundConfig((current ?? {}) as OutboundConfig, patch));
  const updated = await updateCheck(ctx.deps, check, { ...draftOf(check, current), outbound: config });
  return detailsOf(ctx.deps, updated, ctx.deps.clock.now(), true);
}

export async function listCheckRuns(ctx: Ctx, checkId: number, query: RunsQuery): Promise<Page<ProbeRun>> {
  const check = await loadOutboundCheck(ctx, checkId, 'VIEWER');
  return listRuns(ctx.deps, check.checkId, query, ctx.deps.clock.now());
}
