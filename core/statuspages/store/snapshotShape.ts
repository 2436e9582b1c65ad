import type { StatusPageItem } from '../../store/entities/statusPage.js';
import type { AnnouncementImpact, AnnouncementStatus } from '../announcementSchema.js';
import type { CheckSnapshot, IntegrationHold, MaintenanceHold, PageStatusSnapshot } from '../componentStatus.js';
import type { DayRollup, MaintenanceSpan, ObservedState } from '../uptime.js';

// The snapshot's shape apart from how it is built (snapshot.ts), so the view cache can hold it.

export type SnapshotPage = {
  id: number;
  workspaceId: number;
  name: string;
  slug: string;
  visibility: StatusPageItem['visibility'];
  passwordVersion: number;
  enabled: boolean;
  customDomain: string | null;
  customDomainVerifiedAt: string | null;
  logoUrl: string | null;
  faviconUrl: string | null;
  primaryColor: string | null;
  backgroundColor: string | null;
  headerHtml: string | null;
  footerHtml: string | null;
  showUptimeHistory: boolean;
  uptimeHistoryDays: number;
  showIncidentHistory: boolean;
};

export type SnapshotComponent = {
  id: number;
  name: string;
  description: string | null;
  groupName: string | null;
  position: number;
  showUptimeBar: boolean;
  checkId: number | null;
  projectId: number | null;
  dependencyId: number | null;
  /** Absent in snapshots built before components could follow an integration. */
  integrationId?: number | null;
  createdAt: string;
};

export type SnapshotAnnouncement = {
  id: number;
  publicId: string;
  title: string;
  status: AnnouncementStatus;
  impact: AnnouncementImpact | null;
  componentIds: number[];
  scheduledFor: string | null;
  scheduledUntil: string | null;
  resolvedAt: string | null;
  createdAt: string;
  updatedAt: string;
  updates: { id: number; status: AnnouncementStatus | null; body: string; createdAt: string }[];
};

export type CheckUptime = { days: DayRollup[]; cursor: { state: ObservedState; since: string } | null; maintenance: MaintenanceSpan[] };

/** Everything a public request needs, in one item (entities/statusPageSnapshot.ts). */
export type PageSnapshot = {
  page: SnapshotPage;
  components: SnapshotComponent[];
  checks: CheckSnapshot[];
  dependenciesDown: number[];
  /** Integrations with open incidents and the status their worst severity means (absent in older snapshots). */
  integrationsOpen?: IntegrationHold[];
  maintenance: MaintenanceHold[];
  announcements: SnapshotAnnouncement[];
  uptime: Record<string, CheckUptime>;
  /** The statuses at build time: the next build's diff yields component.status_changed once. */
  statuses: PageStatusSnapshot;
  builtAt: string;
};
