import type { CHECK_STATUSES, SEVERITIES } from '../store/entities/check.js';
import type { AnnouncementState } from './announcementTransition.js';
import { inEffect, maintenanceInProgress } from './announcementTransition.js';
import type { AnnouncementImpact } from './announcementSchema.js';

/**
 * Component status: one pure function from the
 * targets, maintenance, announcements and an instant to every component's status and the page's
 * overall status, and the diff that turns two snapshots into `component.status_changed` events.
 */

export const COMPONENT_STATUSES = ['OPERATIONAL', 'DEGRADED_PERFORMANCE', 'PARTIAL_OUTAGE', 'MAJOR_OUTAGE', 'UNDER_MAINTENANCE'] as const;
export type ComponentStatus = (typeof COMPONENT_STATUSES)[number];
type CheckStatus = (typeof CHECK_STATUSES)[number];
type Severity = (typeof SEVERITIES)[number];

/**
 * How bad a status is, for "worst of": maintenance sits just above OPERATIONAL, so any impact an
 * announcement declares ("says worse") outranks it, and a page with one component in
 * maintenance and the rest fine reads as under maintenance.
 */
export const STATUS_RANK: Record<ComponentStatus, number> = {
  OPERATIONAL: 0,
  UNDER_MAINTENANCE: 1,
  DEGRADED_PERFORMANCE: 2,
  PARTIAL_OUTAGE: 3,
  MAJOR_OUTAGE: 4,
};

export const worst = (statuses: Iterable<ComponentStatus>): ComponentStatus => {
  let result: ComponentStatus = 'OPERATIONAL';
  for (const status of statuses) if (STATUS_RANK[status] > STATUS_RANK[result]) result = status;
  return result;
};

export const IMPACT_STATUS: Record<AnnouncementImpact, ComponentStatus> = {
  NONE: 'OPERATIONAL',
  MINOR: 'DEGRADED_PERFORMANCE',
  MAJOR: 'PARTIAL_OUTAGE',
  CRITICAL: 'MAJOR_OUTAGE',
};

/** What the status needs to know of a check. */
export type CheckSnapshot = {
  checkId: number;
  projectId: number | null;
  status: CheckStatus;
  /** Outbound: regions whose latest run failed; 0 for inbound checks. */
  failingRegions: number;
  /** An outbound latency warning within its cooldown hour (core/probes/warnings.ts). */
  latencyWarningActive: boolean;
};

export type ComponentTargetRef = { id: number; checkId: number | null; projectId: number | null; dependencyId: number | null; integrationId?: number | null | undefined };

/** An integration with open incidents: the worst open severity, as a component status. */
export type IntegrationHold = { integrationId: number; status: ComponentStatus };

/** What an open incident of this severity says of a component that follows its integration. */
export const SEVERITY_STATUS: Record<Severity, ComponentStatus> = {
  P1: 'MAJOR_OUTAGE',
  P2: 'PARTIAL_OUTAGE',
  P3: 'DEGRADED_PERFORMANCE',
  P4: 'DEGRADED_PERFORMANCE',
};

/** A maintenance window's hold on one project: from `startsAt` (inclusive) to `endsAt` (exclusive; null: until removed). */
export type MaintenanceHold = { projectId: number; startsAt: string; endsAt: string | null };

export type AnnouncementInput = Pick<AnnouncementState, 'status' | 'impact' | 'componentIds' | 'scheduledFor' | 'scheduledUntil'>;

export type StatusInputs = {
  components: readonly ComponentTargetRef[];
  /** Every check a component names, directly or through its project. */
  checks: readonly CheckSnapshot[];
  /** Dependencies with an active DEPENDENCY_DOWN incident. */
  dependenciesDown: readonly number[];
  /** Integrations with an open incident (none: the integration is operational). */
  integrationsOpen?: readonly IntegrationHold[] | undefined;
  maintenance: readonly MaintenanceHold[];
  /** The page's open announcements (resolved ones are ignored anyway). */
  announcements: readonly AnnouncementInput[];
};

export type ComponentStatusEntry = { componentId: number; status: ComponentStatus };
export type PageStatusSnapshot = { overall: ComponentStatus; components: ComponentStatusEntry[] };

/** A single check: DOWN is an outage; LATE, failing regions or slow answers are degradation. */
export function checkStatus(check: CheckSnapshot): ComponentStatus {
  if (check.status === 'DOWN') return 'MAJOR_OUTAGE';
  if (check.status === 'PAUSED' || check.status === 'NEW') return 'OPERATIONAL';
  // A majority of failing regions is on its way to DOWN (failAfterConsecutive rounds); until it
  // gets there it is degraded like a minority.
  if (check.status === 'LATE' || check.failingRegions > 0 || check.latencyWarningActive) return 'DEGRADED_PERFORMANCE';
  return 'OPERATIONAL';
}

/** A project: every unpaused check DOWN is a major outage, some DOWN a partial one, else the worst of the rest. */
export function projectStatus(checks: readonly CheckSnapshot[]): ComponentStatus {
  const watched = checks.filter((check) => check.status !== 'PAUSED');
  const down = watched.filter((check) => check.status === 'DOWN').length;
  if (down > 0) return down === watched.length ? 'MAJOR_OUTAGE' : 'PARTIAL_OUTAGE';
  return worst(watched.map(checkStatus));
}

/**
 * The rule that joins the three sources: maintenance replaces what the target says (planned work
 * is not an outage), and an announcement in effect can only raise the result.
 */
export function combineStatus(target: ComponentStatus, underMaintenance: boolean, announced: ComponentStatus): ComponentStatus {
  return worst([underMaintenance ? 'UNDER_MAINTENANCE' : target, announced]);
}

const holdCovers = (hold: MaintenanceHold, at: number): boolean => Date.parse(hold.startsAt) <= at && (hold.endsAt === null || Date.parse(hold.endsAt) > at);

/** Every component's status and the page's overall status at `now`. Input order is irrelevant. */
export function computePageStatus(inputs: StatusInputs, now: Date): PageStatusSnapshot {
  const at = now.getTime();
  const checksById = new Map(inputs.checks.map((check) => [check.checkId, check]));
  const checksByProject = new Map<number, CheckSnapshot[]>();
  for (const check of inputs.checks) {
    if (check.projectId === null) continue;
    checksByProject.set(check.projectId, [...(checksByProject.get(check.projectId) ?? []), check]);
  }
  const dependenciesDown = new Set(inputs.dependenciesDown);
  const integrationStatus = new Map((inputs.integrationsOpen ?? []).map((hold) => [hold.integrationId, hold.status]));
  const projectsInMaintenance = new Set(inputs.maintenance.filter((hold) => holdCovers(hold, at)).map((hold) => hold.projectId));
  const effective = inputs.announcements.filter((announcement) => inEffect(announcement, now));

  const components = inputs.components.map((component): ComponentStatusEntry => {
    let target: ComponentStatus = 'OPERATIONAL';
    let project: number | null = null;
    if (component.checkId !== null) {
      const check = checksById.get(component.checkId);
      if (check) target = checkStatus(check);
      project = check?.projectId ?? null;
    } else if (component.projectId !== null) {
      target = projectStatus(checksByProject.get(component.projectId) ?? []);
      project = component.projectId;
    } else if (component.dependencyId !== null && dependenciesDown.has(component.dependencyId)) {
      target = 'MAJOR_OUTAGE';
    } else if (component.integrationId != null) {
      target = integrationStatus.get(component.integrationId) ?? 'OPERATIONAL';
    }
    const mine = effective.filter((announcement) => announcement.componentIds.includes(component.id));
    const underMaintenance = (project !== null && projectsInMaintenance.has(project)) || mine.some((announcement) => maintenanceInProgress(announcement, now));
    const announced = worst(mine.map((announcement) => (announcement.impact === null ? 'OPERATIONAL' : IMPACT_STATUS[announcement.impact])));
    return { componentId: component.id, status: combineStatus(target, underMaintenance, announced) };
  });
  return { overall: worst(components.map((entry) => entry.status)), components };
}

/** The page-level indicator of the public JSON and of the Statuspage-shaped summary. */
export type StatusIndicator = 'none' | 'minor' | 'major' | 'critical' | 'maintenance';
const INDICATORS: Record<ComponentStatus, { indicator: StatusIndicator; description: string }> = {
  OPERATIONAL: { indicator: 'none', description: 'All Systems Operational' },
  UNDER_MAINTENANCE: { indicator: 'maintenance', description: 'Service Under Maintenance' },
  DEGRADED_PERFORMANCE: { indicator: 'minor', description: 'Degraded Performance' },
  PARTIAL_OUTAGE: { indicator: 'major', description: 'Partial System Outage' },
  MAJOR_OUTAGE: { indicator: 'critical', description: 'Major System Outage' },
};
export const overallIndicator = (overall: ComponentStatus): { indicator: StatusIndicator; description: string } => INDICATORS[overall];

export type ComponentStatusChanged = {
  type: 'component.status_changed';
  /** Names the change for the outbox, so a redelivered write emits nothing twice. */
  key: string;
  componentId: number;
  status: ComponentStatus;
  previous: ComponentStatus;
  at: string;
};

/**
 * The events between the stored snapshot and a fresh one: one per component whose status
 * differs. Components that appear or disappear are page edits, not status changes. The caller
 * stores `next` with a conditional write on the snapshot it read and emits only if that wins.
 */
export function diffSnapshots(previous: PageStatusSnapshot | null, next: PageStatusSnapshot, now: Date): ComponentStatusChanged[] {
  if (previous === null) return [];
  const before = new Map(previous.components.map((entry) => [entry.componentId, entry.status]));
  const at = now.toISOString();
  return next.components.flatMap((entry) => {
    const was = before.get(entry.componentId);
    if (was === undefined || was === entry.status) return [];
    return [
      {
        type: 'component.status_changed' as const,
        key: `${entry.componentId}:${was}>${entry.status}@${at}`,
        componentId: entry.componentId,
        status: entry.status,
        previous: was,
        at,
      },
    ];
  });
}
