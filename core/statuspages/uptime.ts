import type { CHECK_STATUSES } from '../store/entities/check.js';

/**
 * Uptime rollups (docs/guide/status-pages.md "How uptime is counted"): per check and UTC day, counters that status
 * intervals add to as they close, so a year of one component is one query of at most 366 small
 * items, never a read of signals or runs.
 *
 * Why four counters, not three: the simpler `1 - down / (observed - maintenance)`
 * takes maintenance out of the denominator even when the target was up, so a window over a
 * healthy hour would lower the day's uptime (23 h up + 1 h down reads 95.8 %; with 12 of the
 * up hours in maintenance it would read 91.7 %). That breaks the other rule, "maintenance never
 * lowers uptime". Here only the down time inside maintenance is excused:
 *
 *   uptime = 1 - downSeconds / (observedSeconds - maintenanceDownSeconds)
 *
 * which is the simpler formula whenever the target was down throughout its maintenance, and
 * never lower than the day would read without the window.
 */

type CheckStatus = (typeof CHECK_STATUSES)[number];
export const DAY_MS = 86_400_000;

export type DayCounters = {
  /** Seconds the target was watched (not NEW, not PAUSED). */
  observedSeconds: number;
  /** Seconds DOWN outside maintenance: the only time held against uptime. */
  downSeconds: number;
  /** Observed seconds under maintenance, up or down (shown on the page). */
  maintenanceSeconds: number;
  /** Seconds DOWN under maintenance: excused, left out of the day. */
  maintenanceDownSeconds: number;
};
/** One rollup item: a check's counters for one UTC day (`YYYY-MM-DD`). */
export type DayRollup = { date: string } & DayCounters;

export type ObservedState = 'UP' | 'DOWN' | 'UNOBSERVED';
/** LATE is suspicion, not an outage; NEW and PAUSED watch nothing, so they are no data. */
export function observedState(status: CheckStatus): ObservedState {
  if (status === 'DOWN') return 'DOWN';
  return status === 'NEW' || status === 'PAUSED' ? 'UNOBSERVED' : 'UP';
}

/** A closed status interval `[start, end)`, or the open one at read time with `end = now`. */
export type StatusInterval = { start: string; end: string; state: ObservedState };
/** A maintenance hold on the target's project, `[start, end)`; null end: still running. */
export type MaintenanceSpan = { start: string; end: string | null };

export const utcDate = (ms: number): string => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
const zero = (date: string): DayRollup => ({ date, observedSeconds: 0, downSeconds: 0, maintenanceSeconds: 0, maintenanceDownSeconds: 0 });

/**
 * What closing `interval` adds to each UTC day it touches: the interval is cut at midnights and
 * at maintenance edges, and each piece lands in its day's counters. The store applies each entry
 * as one `ADD` upsert of that day's item; reads merge the open interval the same way.
 */
export function rollupDeltas(interval: StatusInterval, maintenance: readonly MaintenanceSpan[]): DayRollup[] {
  const start = Date.parse(interval.start);
  const end = Date.parse(interval.end);
  if (!(end > start) || interval.state === 'UNOBSERVED') return [];
  const spans = maintenance.map((span) => ({ start: Date.parse(span.start), end: span.end === null ? Infinity : Date.parse(span.end) }));
  const cuts = new Set<number>([start, end]);
  for (let midnight = Math.floor(start / DAY_MS) * DAY_MS + DAY_MS; midnight < end; midnight += DAY_MS) cuts.add(midnight);
  for (const span of spans) for (const edge of [span.start, span.end]) if (edge > start && edge < end) cuts.add(edge);
  const points = [...cuts].sort((a, b) => a - b);

  const byDay = new Map<string, DayRollup>();
  const down = interval.state === 'DOWN';
  for (let i = 0; i + 1 < points.length; i++) {
    const from = points[i]!;
    const seconds = (points[i + 1]! - from) / 1000;
    const date = utcDate(from);
    const day = byDay.get(date) ?? zero(date);
    const inMaintenance = spans.some((span) => span.start <= from && from < span.end);
    day.observedSeconds += seconds;
    if (inMaintenance) day.maintenanceSeconds += seconds;
    if (down && inMaintenance) day.maintenanceDownSeconds += seconds;
    if (down && !inMaintenance) day.downSeconds += seconds;
    byDay.set(date, day);
  }
  return [...byDay.values()];
}

/** Adds rollups day by day (stored items plus the open interval's deltas); sorted by date. */
export function mergeRollups(...lists: readonly (readonly DayRollup[])[]): DayRollup[] {
  const byDay = new Map<string, DayRollup>();
  for (const list of lists) {
    for (const item of list) {
      const day = byDay.get(item.date) ?? zero(item.date);
      day.observedSeconds += item.observedSeconds;
      day.downSeconds += item.downSeconds;
      day.maintenanceSeconds += item.maintenanceSeconds;
      day.maintenanceDownSeconds += item.maintenanceDownSeconds;
      byDay.set(item.date, day);
    }
  }
  return [...byDay.values()].sort((a, b) => a.date.localeCompare(b.date));
}

/** Day buckets with one more closed interval added: the in-memory twin of the store's `ADD`s. */
export const addInterval = (buckets: readonly DayRollup[], interval: StatusInterval, maintenance: readonly MaintenanceSpan[]): DayRollup[] =>
  mergeRollups(buckets, rollupDeltas(interval, maintenance));

const clamp01 = (value: number): number => Math.min(1, Math.max(0, value));

/** A day's uptime in [0, 1]; null when nothing was observed ("no data", never 100 %). */
export function dayUptime(counters: DayCounters | undefined): number | null {
  if (!counters || counters.observedSeconds <= 0) return null;
  const counted = counters.observedSeconds - counters.maintenanceDownSeconds;
  // Everything observed was excused maintenance: nothing counts against the day.
  if (counted <= 0) return 1;
  return clamp01(1 - counters.downSeconds / counted);
}

/**
 * The dates of a bar: `days` UTC days ending `offset` days before today, newest last. The store
 * reads them with one query between the first and the last date.
 */
export function uptimeDates(now: Date, days: number, offset: number): string[] {
  const last = Math.floor(now.getTime() / DAY_MS) - offset;
  return Array.from({ length: days }, (_, i) => utcDate((last - days + 1 + i) * DAY_MS));
}

export type UptimeDay = { date: string; uptime: number | null; downSeconds: number; maintenanceSeconds: number };
export type UptimeRead = { days: UptimeDay[]; uptime: number | null };

/**
 * The public uptime of one component: the days of `uptimeDates`, each null before the day the
 * component was created (`notBefore`) or without data, and the range's uptime over the days with
 * data (null when there are none). `rollups` are the target's items (for a project component,
 * `worstRollups` of its checks) already merged with the open interval.
 */
export function readUptime(rollups: readonly DayRollup[], query: { now: Date; days: number; offset: number; notBefore: string }): UptimeRead {
  const byDate = new Map(rollups.map((item) => [item.date, item]));
  const firstDay = utcDate(Date.parse(query.notBefore));
  const total: DayCounters = { observedSeconds: 0, downSeconds: 0, maintenanceSeconds: 0, maintenanceDownSeconds: 0 };
  const days = uptimeDates(query.now, query.days, query.offset).map((date): UptimeDay => {
    const item = date < firstDay ? undefined : byDate.get(date);
    const uptime = dayUptime(item);
    if (!item || uptime === null) return { date, uptime: null, downSeconds: 0, maintenanceSeconds: 0 };
    total.observedSeconds += item.observedSeconds;
    total.downSeconds += item.downSeconds;
    total.maintenanceSeconds += item.maintenanceSeconds;
    total.maintenanceDownSeconds += item.maintenanceDownSeconds;
    return { date, uptime, downSeconds: Math.round(item.downSeconds), maintenanceSeconds: Math.round(item.maintenanceSeconds) };
  });
  return { days, uptime: dayUptime(total) };
}

/** A project component's day is the worst of its checks' days; days no check observed stay absent. */
export function worstRollups(perCheck: readonly (readonly DayRollup[])[]): DayRollup[] {
  const byDay = new Map<string, { item: DayRollup; uptime: number }>();
  for (const rollups of perCheck) {
    for (const item of rollups) {
      const uptime = dayUptime(item);
      if (uptime === null) continue;
      const current = byDay.get(item.date);
      if (!current || uptime < current.uptime) byDay.set(item.date, { item, uptime });
    }
  }
  return [...byDay.values()].map(({ item }) => item).sort((a, b) => a.date.localeCompare(b.date));
}

/** Midnight UTC of a rollup date (TTLs: keep items 400 days, as the probe rollups). */
export const rollupDayStart = (date: string): number => Date.parse(`${date}T00:00:00.000Z`);
