import { Gauge, Registry } from 'prom-client';
import { authorize } from '../auth/authorize.js';
import type { Ctx } from '../context.js';
import type { Deps } from '../deps.js';
import { getProject } from '../identity/projects.js';
import { latestRunsByRegion } from '../probes/runs.js';
import { PROBE_REGIONS } from '../checks/outboundSchema.js';
import { CHECK_STATUSES, SEVERITIES, type CheckItem, type CheckRefItem } from '../store/entities/check.js';
import { keyWorkspaceId } from '../auth/keyScope.js';
import { getAll } from '../store/batch.js';

/** Refs read per index page: one BatchGetItem per page, so a big workspace is never held whole. */
export const CHECK_PAGE_SIZE = 100;
/** Probe-run reads in flight at once, so one scrape of many outbound checks does not flood the table. */
const PROBE_READS_IN_FLIGHT = 8;

export type Exposition = { contentType: string; body: string };

type CheckLabels = { check_id: string; check_name: string; project_id: string; check_type: string };

/**
 * The key's workspace in the Prometheus text format (`GET /v1/metrics`), narrowed to one project
 * by `projectId` (a foreign project is 404). A fresh Registry per scrape: nothing is shared between
 * workspaces or kept between requests. Reads are the existing index queries, paged: the check refs
 * of the workspace or project, the open incidents, and the newest probe runs of each outbound check.
 */
export async function workspaceMetrics(ctx: Ctx, query: { projectId?: number | undefined }): Promise<Exposition> {
  const workspaceId = keyWorkspaceId(ctx.actor);
  await authorize(ctx.deps, ctx.actor, workspaceId, 'VIEWER', 'Workspace');
  if (query.projectId !== undefined) await getProject(ctx, query.projectId);
  const scope = { workspaceId, projectId: query.projectId };
  const now = ctx.deps.clock.now();

  const registry = new Registry();
  const checkLabels = ['check_id', 'check_name', 'project_id', 'check_type'] as const;
  const status = new Gauge({
    name: 'vigil_check_status',
    help: 'Current status of a check: 1 for the status it is in, 0 for the others.',
    labelNames: [...checkLabels, 'status'],
    registers: [registry],
  });
  const pingAge = new Gauge({
    name: 'vigil_check_last_ping_age_seconds',
    help: 'Seconds since the last ping of a check (absent for a check that never pinged).',
    labelNames: checkLabels,
    registers: [registry],
  });
  const probeLatency = new Gauge({
    name: 'vigil_probe_last_latency_seconds',
    help: 'Latency of the newest probe run of an outbound check from each region (runs kept 7 days).',
    labelNames: [...checkLabels, 'region'],
    registers: [registry],
  });
  const probeOk = new Gauge({
    name: 'vigil_probe_last_success',
    help: 'Whether the newest probe run of an outbound check from each region passed (1) or failed (0).',
    labelNames: [...checkLabels, 'region'],
    registers: [registry],
  });
  const openIncidents = new Gauge({
    name: 'vigil_incidents_open',
    help: 'Incidents not resolved yet (ACTIVE or MONITORING), by severity.',
    labelNames: ['severity'],
    registers: [registry],
  });

  const outbound: { labels: CheckLabels; checkId: number }[] = [];
  for await (const checks of checkPages(ctx.deps, scope)) {
    for (const check of checks) {
      const labels = labelsOf(check);
      for (const candidate of CHECK_STATUSES) status.set({ ...labels, status: candidate }, candidate === check.status ? 1 : 0);
      if (check.lastPingAt) pingAge.set(labels, Math.max(0, (now.getTime() - Date.parse(check.lastPingAt)) / 1000));
      if (check.checkMode === 'OUTBOUND') outbound.push({ labels, checkId: check.checkId });
    }
  }

  await eachLimited(outbound, PROBE_READS_IN_FLIGHT, async ({ labels, checkId }) => {
    for (const { region, lastRun } of await latestRunsByRegion(ctx.deps, checkId, PROBE_REGIONS, now)) {
      if (!lastRun) continue;
      probeLatency.set({ ...labels, region }, lastRun.latencyMs / 1000);
      probeOk.set({ ...labels, region }, lastRun.ok ? 1 : 0);
    }
  });

  const bySeverity = await openIncidentCounts(ctx.deps, scope);
  for (const severity of SEVERITIES) openIncidents.set({ severity }, bySeverity.get(severity) ?? 0);

  return { contentType: registry.contentType, body: await registry.metrics() };
}

const labelsOf = (check: CheckItem): CheckLabels => ({
  check_id: String(check.checkId),
  check_name: check.name,
  project_id: check.projectId === undefined ? '' : String(check.projectId),
  check_type: check.checkType,
});

type Scope = { workspaceId: number; projectId: number | undefined };

/**
 * The live checks of the workspace (or project), one index page at a time. Reads are eventually
 * consistent: a scrape a second behind a write is fine, and costs half. The check's own
 * workspaceId and projectId decide, since a ref is rewritten just after a move.
 */
export async function* checkPages(deps: Deps, scope: Scope, pageSize = CHECK_PAGE_SIZE): AsyncGenerator<CheckItem[]> {
  const { checkRef } = deps.store.entities;
  let cursor: string | null = null;
  do {
    const page: { data: CheckRefItem[]; cursor: string | null } =
      scope.projectId === undefined
        ? await checkRef.query.byWorkspace({ workspaceId: scope.workspaceId }).go({ cursor, limit: pageSize })
        : await checkRef.query.byProject({ projectId: scope.projectId }).go({ cursor, limit: pageSize });
    cursor = page.cursor;
    const checks = await checksOf(deps, page.data);
    yield checks.filter(
      (check) => check.deletedAt === undefined && check.workspaceId === scope.workspaceId && (scope.projectId === undefined || check.projectId === scope.projectId),
    );
  } while (cursor);
}

async function checksOf(deps: Deps, refs: readonly CheckRefItem[]): Promise<CheckItem[]> {
  const found = await getAll(
    deps.store,
    refs.map((ref) => ({ token: ref.token })),
    (keys) => deps.store.entities.check.get(keys).go(),
    'checks',
  );
  return found.sort((a, b) => a.checkId - b.checkId);
}

/**
 * Open incidents by severity. The incident indexes have no open-only key, so this is the list
 * query with a filter: DynamoDB reads the resolved ones too (paged, never held), and returns only
 * the open ones.
 */
async function openIncidentCounts(deps: Deps, scope: Scope): Promise<Map<string, number>> {
  const { incident } = deps.store.entities;
  const query = scope.projectId === undefined ? incident.query.byWorkspace({ workspaceId: scope.workspaceId }) : incident.query.byProject({ projectId: scope.projectId });
  const open = await query.where((attr, op) => op.ne(attr.state, 'RESOLVED')).go({ pages: 'all' });
  const counts = new Map<string, number>();
  for (const item of open.data) {
    if (item.workspaceId !== scope.workspaceId) continue;
    counts.set(item.severity, (counts.get(item.severity) ?? 0) + 1);
  }
  return counts;
}

async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      if (item !== undefined) await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
