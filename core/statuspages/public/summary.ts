import type { Config } from '../../config.js';
import { phaseOf } from '../announcementTransition.js';
import { overallIndicator, worst, type ComponentStatus, type StatusIndicator } from '../componentStatus.js';
import { markdownToText, singleLine } from '../render/sanitize.js';
import { statusesAt, type PageSnapshot, type SnapshotAnnouncement } from '../store/snapshot.js';

/**
 * Two read-only summaries of a page, both built from the snapshot alone (no store read):
 * - `/summary`: the widget's small shape (name, link, overall status).
 * - `/summary.json`: Atlassian Statuspage's `/api/v2/summary.json` shape, so status aggregators
 *   and chat integrations that read Statuspage pages read a Vigil page unchanged. Ids are strings there, statuses lower case, and component groups are components
 *   with `group: true` listing their members; Vigil groups are names, so a group's id is derived
 *   from its name.
 * Tenant text leaves as plain text (titles on one line, timeline Markdown as text): a consumer
 * that drops it into HTML unescaped gets no markup from us.
 */

export const pageUrlOf = (config: Pick<Config, 'publicUrl'>, slug: string): string => `${config.publicUrl}/status/${slug}`;

export type WidgetSummary = {
  page: { name: string; url: string };
  status: { indicator: StatusIndicator; description: string };
  updatedAt: string;
};

export function widgetSummary(config: Config, snapshot: PageSnapshot, now: Date): WidgetSummary {
  return {
    page: { name: singleLine(snapshot.page.name), url: pageUrlOf(config, snapshot.page.slug) },
    status: overallIndicator(statusesAt(snapshot, now).overall),
    updatedAt: snapshot.builtAt,
  };
}

type StatuspageComponent = {
  id: string;
  name: string;
  status: Lowercase<ComponentStatus>;
  created_at: string;
  updated_at: string;
  position: number;
  description: string | null;
  showcase: boolean;
  start_date: string | null;
  group_id: string | null;
  page_id: string;
  group: boolean;
  only_show_if_degraded: boolean;
  components?: string[];
};

type StatuspageUpdate = {
  id: string;
  status: string;
  body: string;
  incident_id: string;
  created_at: string;
  updated_at: string;
  display_at: string;
  affected_components: null;
};

type StatuspageIncident = {
  id: string;
  name: string;
  status: string;
  created_at: string;
  updated_at: string;
  monitoring_at: string | null;
  resolved_at: string | null;
  impact: 'none' | 'minor' | 'major' | 'critical';
  shortlink: string;
  started_at: string;
  page_id: string;
  incident_updates: StatuspageUpdate[];
  components: StatuspageComponent[];
  scheduled_for?: string | null;
  scheduled_until?: string | null;
};

export type StatuspageSummary = {
  page: { id: string; name: string; url: string; time_zone: string; updated_at: string };
  status: { indicator: StatusIndicator; description: string };
  components: StatuspageComponent[];
  incidents: StatuspageIncident[];
  scheduled_maintenances: StatuspageIncident[];
};

const lower = <T extends string>(value: T): Lowercase<T> => value.toLowerCase() as Lowercase<T>;
const groupId = (pageId: string, name: string): string => `${pageId}-group-${Buffer.from(name).toString('base64url')}`;

export function statuspageSummary(config: Config, snapshot: PageSnapshot, now: Date): StatuspageSummary {
  const { page } = snapshot;
  const pageId = page.slug;
  const url = pageUrlOf(config, page.slug);
  const statuses = statusesAt(snapshot, now);
  const statusOf = new Map(statuses.components.map((entry) => [entry.componentId, entry.status]));

  const members: StatuspageComponent[] = snapshot.components.map((c) => ({
    id: String(c.id),
    name: singleLine(c.name),
    status: lower(statusOf.get(c.id) ?? 'OPERATIONAL'),
    created_at: c.createdAt,
    updated_at: snapshot.builtAt,
    position: c.position,
    description: c.description === null ? null : singleLine(c.description, 1000),
    showcase: c.showUptimeBar,
    start_date: c.createdAt.slice(0, 10),
    group_id: c.groupName === null ? null : groupId(pageId, c.groupName),
    page_id: pageId,
    group: false,
    only_show_if_degraded: false,
  }));
  const groups = new Map<string, StatuspageComponent>();
  for (const c of snapshot.components) {
    if (c.groupName === null) continue;
    const id = groupId(pageId, c.groupName);
    const group = groups.get(id);
    const status = statusOf.get(c.id) ?? 'OPERATIONAL';
    if (group) {
      group.components?.push(String(c.id));
      // A group shows its worst member, as Statuspage does.
      group.status = lower(worst([status, upper(group.status)]));
      continue;
    }
    groups.set(id, {
      id,
      name: singleLine(c.groupName),
      status: lower(status),
      created_at: c.createdAt,
      updated_at: snapshot.builtAt,
      position: c.position,
      description: null,
      showcase: false,
      start_date: null,
      group_id: null,
      page_id: pageId,
      group: true,
      only_show_if_degraded: false,
      components: [String(c.id)],
    });
  }
  const byId = new Map(members.map((c) => [c.id, c]));

  const incident = (a: SnapshotAnnouncement, status: string): StatuspageIncident => {
    const updates = [...a.updates].reverse().map((u) => ({
      id: `${a.publicId}-${u.id}`,
      status: u.status === null ? status : lower(u.status),
      body: markdownToText(u.body),
      incident_id: a.publicId,
      created_at: u.createdAt,
      updated_at: u.createdAt,
      display_at: u.createdAt,
      affected_components: null,
    }));
    const monitoring = a.updates.find((u) => u.status === 'MONITORING');
    return {
      id: a.publicId,
      name: singleLine(a.title),
      status,
      created_at: a.createdAt,
      updated_at: a.updatedAt,
      monitoring_at: monitoring?.createdAt ?? null,
      resolved_at: a.resolvedAt,
      impact: a.impact === null ? 'none' : lower(a.impact),
      shortlink: url,
      started_at: a.scheduledFor ?? a.createdAt,
      page_id: pageId,
      incident_updates: updates,
      components: a.componentIds.flatMap((id) => byId.get(String(id)) ?? []),
      ...(a.scheduledFor !== null ? { scheduled_for: a.scheduledFor, scheduled_until: a.scheduledUntil } : {}),
    };
  };

  const incidents: StatuspageIncident[] = [];
  const scheduled: StatuspageIncident[] = [];
  for (const a of snapshot.announcements) {
    const phase = phaseOf(a, now);
    if (phase === 'SCHEDULED') scheduled.push(incident(a, 'scheduled'));
    else if (phase === 'IN_PROGRESS') scheduled.push(incident(a, 'in_progress'));
    else if (phase === 'ACTIVE') incidents.push(incident(a, lower(a.status)));
  }

  return {
    page: { id: pageId, name: singleLine(page.name), url, time_zone: 'Etc/UTC', updated_at: snapshot.builtAt },
    status: overallIndicator(statuses.overall),
    components: [...groups.values(), ...members].sort((a, b) => a.position - b.position || Number(a.group) - Number(b.group)),
    incidents: incidents.sort((a, b) => b.created_at.localeCompare(a.created_at)),
    scheduled_maintenances: scheduled.sort((a, b) => (a.scheduled_for ?? '').localeCompare(b.scheduled_for ?? '')),
  };
}

const upper = (status: Lowercase<ComponentStatus>): ComponentStatus => status.toUpperCase() as ComponentStatus;
