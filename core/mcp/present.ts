import { readOutboundConfig } from '../checks/outboundSchema.js';
import type { Page } from '../http/pagination.js';
import type { CheckItem } from '../store/entities/check.js';
import type { DeploymentView } from '../deployments/schema.js';
import type { MaintenanceWindowView } from '../maintenance/schema.js';
import type { IncidentResponse } from '../incidents/schema.js';
import type { CheckSummary, IncidentSummary } from './schema.js';

/** The spec's page envelope told the way an assistant needs it: what is here, and what is left. */
export function pageOf<T>(page: Page<T>) {
  const remaining = Math.max(0, page.total - page.page * page.limit);
  return {
    items: page.items,
    total: page.total,
    page: page.page,
    limit: page.limit,
    pageCount: page.pageCount,
    remaining,
    nextPage: remaining > 0 ? page.page + 1 : null,
  };
}

export function checkSummary(check: CheckItem): CheckSummary {
  return {
    id: check.checkId,
    name: check.name,
    slug: check.slug ?? null,
    projectId: check.projectId ?? null,
    checkType: check.checkType,
    status: check.status,
    paused: check.status === 'PAUSED',
    lastPingAt: check.lastPingAt ?? null,
    nextDueAt: check.nextDueAt ?? null,
    url: check.checkMode === 'OUTBOUND' ? (readOutboundConfig(check.outbound)?.url ?? null) : null,
  };
}

export const incidentSummary = (i: IncidentResponse): IncidentSummary => ({
  id: i.id,
  title: i.title,
  state: i.state,
  severity: i.severity,
  reason: i.reason,
  checkId: i.checkId,
  projectId: i.projectId,
  startedAt: i.startedAt,
  acknowledgedAt: i.acknowledgedAt,
  resolvedAt: i.resolvedAt,
});

export const deploymentSummary = (d: DeploymentView) => ({
  id: d.id,
  projectId: d.projectId,
  name: d.name,
  version: d.version,
  status: d.status,
  autoPause: d.autoPause,
  startedAt: d.startedAt,
  endedAt: d.endedAt,
  scheduledEndAt: d.scheduledEndAt,
});

export const maintenanceSummary = (w: MaintenanceWindowView) => ({
  id: w.id,
  name: w.name,
  state: w.state,
  projectIds: w.projectIds,
  startAt: w.startAt,
  endAt: w.endAt,
  suppressAlerts: w.suppressAlerts,
  suppressIncidents: w.suppressIncidents,
  recurringCron: w.recurringCron,
});

// ---- compact text ----

export const checkLine = (c: CheckSummary): string =>
  `#${c.id} ${c.name} [${c.checkType}] ${c.status}` +
  (c.lastPingAt ? `, last ping ${c.lastPingAt}` : '') +
  (c.url ? `, ${c.url}` : '') +
  (c.projectId !== null ? `, project ${c.projectId}` : '');

export const incidentLine = (i: IncidentSummary): string =>
  `#${i.id} ${i.severity} ${i.state} "${i.title}" since ${i.startedAt}` +
  (i.checkId !== null ? `, check ${i.checkId}` : '') +
  (i.acknowledgedAt ? `, acknowledged ${i.acknowledgedAt}` : '') +
  (i.resolvedAt ? `, resolved ${i.resolvedAt}` : '');

/** A list as text: a count line that says what remains, then one line per item. */
export function listText<T>(noun: string, page: ReturnType<typeof pageOf<T>>, line: (item: T) => string): string {
  if (page.total === 0) return `No ${noun}.`;
  const first = (page.page - 1) * page.limit + 1;
  const head =
    page.items.length === 0
      ? `${page.total} ${noun}; page ${page.page} is past the end (${page.pageCount} pages).`
      : `${noun} ${first}-${first + page.items.length - 1} of ${page.total}` + (page.nextPage !== null ? `; ${page.remaining} more (page=${page.nextPage}).` : '.');
  return [head, ...page.items.map(line)].join('\n');
}
