import { makeBadge } from 'badge-maker';
import { z } from '@hono/zod-openapi';
import type { StatusIndicator } from '../componentStatus.js';

/**
 * `badge.svg`: the page's overall status, drawn by `badge-maker` (docs/guide/status-pages.md "Feeds, badge, widget and summary.json").
 * The label is fixed and the message comes from the indicator table, so no tenant string ever
 * lands in the SVG (Uptime Kuma's badge lesson: the visibility check is the route's, not ours).
 */

export const BADGE_STYLES = ['flat', 'flat-square', 'plastic', 'for-the-badge', 'social'] as const;
export const BadgeQuery = z.object({ style: z.enum(BADGE_STYLES).default('flat') });
export type BadgeStyle = (typeof BADGE_STYLES)[number];

const LOOK: Record<StatusIndicator, { message: string; color: string }> = {
  none: { message: 'operational', color: 'brightgreen' },
  minor: { message: 'degraded', color: 'yellow' },
  major: { message: 'partial outage', color: 'orange' },
  critical: { message: 'major outage', color: 'red' },
  maintenance: { message: 'maintenance', color: 'blue' },
};

export function statusBadge(indicator: StatusIndicator, style: BadgeStyle): string {
  const { message, color } = LOOK[indicator];
  return makeBadge({ label: 'status', message, color, style });
}
