import type { Ctx } from '../context.js';
import { getCheckByToken } from '../dashboard/checkReads.js';
import { loadCheckByRef } from '../checks/repository.js';
import { listDeployments, toDeployment } from '../deployments/deployments.js';
import { listMaintenanceWindows, toMaintenanceWindow } from '../maintenance/windows.js';
import { getOutbound, listCheckRuns } from '../probes/outbound.js';
import type { ProbeRun } from '../probes/schema.js';
import type { Signal } from '../signals/schema.js';
import type { CheckItem } from '../store/entities/check.js';
import type { DependencySummary, HoldSummary, ProbeSummary, RegionRun, SignalSummary } from './schema.js';
import { keyWorkspace } from './key.js';

/**
 * What get_check and explain_check know about one check, gathered through the same verbs as the
 * API (each authorises the key against the check's workspace), so a foreign id is the API's 404.
 */
export type CheckDetail = {
  check: CheckItem;
  signals: SignalSummary[];
  probe: ProbeSummary | null;
  recentRuns: RegionRun[];
  dependencies: DependencySummary[];
  holds: HoldSummary[];
};

const PREVIEW_CHARS = 200;
const RECENT_RUNS = 10;

/** The check the key may read, by id or `slug:<slug>` (404 when missing or foreign). */
export const readableCheck = (ctx: Ctx, ref: string): Promise<CheckItem> => loadCheckByRef(ctx, ref, 'VIEWER');

function preview(payload: unknown): string | null {
  if (payload === null || payload === undefined) return null;
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
}

const signalSummary = (s: Signal): SignalSummary => ({
  type: s.type,
  source: s.source,
  receivedAt: s.receivedAt,
  durationMs: s.durationMs,
  payloadPreview: preview(s.payload),
});

const runOf = (region: string, run: ProbeRun | null): RegionRun => ({
  region,
  lastRunAt: run?.startedAt ?? null,
  ok: run?.ok ?? null,
  statusCode: run?.statusCode ?? null,
  latencyMs: run?.latencyMs ?? null,
  failureReason: run?.failureReason ?? null,
});

async function probeOf(ctx: Ctx, check: CheckItem): Promise<{ probe: ProbeSummary | null; recentRuns: RegionRun[] }> {
  if (check.checkMode !== 'OUTBOUND') return { probe: null, recentRuns: [] };
  const [details, runs] = await Promise.all([getOutbound(ctx, check.checkId), listCheckRuns(ctx, check.checkId, { page: 1, limit: RECENT_RUNS })]);
  const { state } = details;
  return {
    probe: {
      consecutiveFailures: state.consecutiveFailures,
      consecutiveSuccesses: state.consecutiveSuccesses,
      lastRoundAt: state.lastRoundAt,
      regions: state.regions.map((r) => runOf(r.region, r.lastRun)),
    },
    recentRuns: runs.items.map((run) => runOf(run.region, run)),
  };
}

/**
 * The deployment and maintenance windows that cover the check now. A deployment holds its whole
 * project (no LATE/DOWN while it lasts) and pauses the checks it names; a recurring maintenance
 * window covers only its current occurrence.
 */
async function holdsOf(ctx: Ctx, check: CheckItem): Promise<HoldSummary[]> {
  const projectId = check.projectId;
  if (projectId === undefined) return [];
  const workspaceId = keyWorkspace(ctx);
  const now = ctx.deps.clock.now().getTime();
  const [deployments, windows] = await Promise.all([
    listDeployments(ctx, workspaceId, { projectId, status: 'ACTIVE' }),
    listMaintenanceWindows(ctx, workspaceId, { projectId, state: 'ACTIVE' }),
  ]);
  const holds: HoldSummary[] = deployments.map(toDeployment).map((d) => ({
    kind: 'DEPLOYMENT',
    id: d.id,
    name: d.name ?? d.version,
    startedAt: d.startedAt,
    endsAt: d.scheduledEndAt,
    effect: check.deploymentPaused === true ? 'paused this check until the deployment ends' : 'holds the status: no LATE or DOWN while it lasts',
  }));
  for (const w of windows.map(toMaintenanceWindow)) {
    const startAt = w.occurrenceStartAt ?? w.startAt;
    const endAt = w.occurrenceEndAt ?? w.endAt;
    if (Date.parse(startAt) > now || Date.parse(endAt) <= now) continue;
    const effects = [w.suppressIncidents ? 'no incidents' : null, w.suppressAlerts ? 'no alerts' : null].filter((e) => e !== null);
    holds.push({
      kind: 'MAINTENANCE',
      id: w.id,
      name: w.name,
      startedAt: startAt,
      endsAt: endAt,
      effect: effects.length > 0 ? effects.join(', ') : 'probing and alerting continue',
    });
  }
  return holds;
}

export async function checkDetail(ctx: Ctx, check: CheckItem, signalCount: number): Promise<CheckDetail> {
  const [withSignals, probe, holds] = await Promise.all([getCheckByToken(ctx, check.token), probeOf(ctx, check), holdsOf(ctx, check)]);
  return {
    check: withSignals.check,
    signals: withSignals.signals.slice(0, signalCount).map(signalSummary),
    ...probe,
    dependencies: withSignals.dependencies.map((d) => ({ id: d.id, name: d.name, status: d.status, source: d.source, lastReportedAt: d.lastReportedAt })),
    holds,
  };
}
