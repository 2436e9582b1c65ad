import type { ComponentStatus } from '../componentStatus.js';
import type { UptimeDay } from '../uptime.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026-11-03` -> `3 Nov 2026` (UTC days, the bars' unit). */
export const dayLabel = (date: string, withYear = true): string => {
  const [year, month, day] = date.split('-');
  return `${Number(day)} ${MONTHS[Number(month) - 1] ?? ''}${withYear ? ` ${year}` : ''}`;
};

export const instantLabel = (iso: string): string => `${dayLabel(iso.slice(0, 10))}, ${iso.slice(11, 16)} UTC`;

export const percent = (uptime: number | null): string => (uptime === null ? 'no data' : `${(Math.floor(uptime * 10000) / 100).toFixed(2)}%`);

export function durationLabel(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}

/** The text equivalent of one day of a bar: what a screen reader hears and a tooltip shows. */
export function dayText(day: UptimeDay): string {
  if (day.uptime === null) return `${dayLabel(day.date, false)}: no data`;
  const down = day.downSeconds > 0 ? `, ${durationLabel(day.downSeconds)} down` : '';
  const maintenance = day.maintenanceSeconds > 0 ? `, ${durationLabel(day.maintenanceSeconds)} maintenance` : '';
  return `${dayLabel(day.date, false)}: ${percent(day.uptime)} uptime${down}${maintenance}`;
}

/** The severity class of a day (shape and colour both change, never colour alone). */
export function dayClass(day: UptimeDay): string {
  if (day.uptime === null) return 'd-none';
  if (day.uptime >= 0.999) return 'd-ok';
  if (day.uptime >= 0.99) return 'd-minor';
  if (day.uptime >= 0.95) return 'd-major';
  return 'd-critical';
}

export const STATUS_TEXT: Record<ComponentStatus, { label: string; symbol: string }> = {
  OPERATIONAL: { label: 'Operational', symbol: '✓' },
  DEGRADED_PERFORMANCE: { label: 'Degraded performance', symbol: '!' },
  PARTIAL_OUTAGE: { label: 'Partial outage', symbol: '!!' },
  MAJOR_OUTAGE: { label: 'Major outage', symbol: '✕' },
  UNDER_MAINTENANCE: { label: 'Under maintenance', symbol: '⚙' },
};

export const ANNOUNCEMENT_STATUS_TEXT: Record<string, string> = {
  INVESTIGATING: 'Investigating',
  IDENTIFIED: 'Identified',
  MONITORING: 'Monitoring',
  RESOLVED: 'Resolved',
};
