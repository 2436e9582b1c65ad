import { Temporal } from 'temporal-polyfill';
import type { RotationType } from './schema.js';

/**
 * One rotation's turns, computed in the schedule's IANA zone with Temporal. A handoff is a
 * wall-clock time, so the shift that spans a DST change is 23 or 25 hours long (for a daily
 * rotation) and the next handoff is at the same local time again, never an hour off.
 *
 * Local times that do not exist (a spring-forward gap) or exist twice (a fall-back overlap) are
 * resolved with Temporal's `compatible` disambiguation, as RFC 5545 does for iCalendar: a handoff
 * in a gap happens at the same offset as before the change (02:30 -> 03:30), one in an overlap at
 * its first occurrence. That mapping never runs backwards for shifts at least as long as the gap,
 * and a turn that would last zero time is skipped.
 */
export type RotationSpec = {
  id: number;
  type: RotationType;
  layerPosition: number;
  effectiveFrom: string;
  effectiveUntil: string | null;
  handoffTime: string;
  handoffDay: number;
  customShiftHours?: number | null | undefined;
  participants: readonly { userId: number; position: number }[];
};

/** A turn `index` of one rotation: `[start, end)` in epoch milliseconds. */
export type Turn = { index: number; userId: number; start: number; end: number };

export type TurnSource = {
  rotation: RotationSpec;
  /** The turn covering `at`, or null outside the rotation's effective range. */
  turnAt(at: number): Turn | null;
  /** Every non-empty turn overlapping `[from, to)`, in order, unclipped. */
  turnsIn(from: number, to: number): Turn[];
};

const disambiguation = 'compatible' as const;

/**
 * The k-th handoff candidate (k >= 0) and an estimate of the last candidate at or before an
 * instant. Candidates never decrease; the estimate is off by at most one or two, which `lastAtOrBefore`
 * corrects by looking at the neighbours.
 */
type Cadence = { candidate(k: number): number; estimate(at: number): number };

function cadence(rotation: RotationSpec, timeZone: string, from: Temporal.ZonedDateTime): Cadence {
  const local = (at: number) => Temporal.Instant.fromEpochMilliseconds(at).toZonedDateTimeISO(timeZone);
  if (rotation.type === 'custom') {
    const hours = rotation.customShiftHours ?? 24;
    const start = from.toPlainDateTime();
    return {
      candidate: (k) => start.add({ hours: k * hours }).toZonedDateTime(timeZone, { disambiguation }).epochMilliseconds,
      estimate: (at) => Math.floor(start.until(local(at).toPlainDateTime(), { largestUnit: 'hours' }).total({ unit: 'hours' }) / hours),
    };
  }
  const plainTime = Temporal.PlainTime.from(rotation.handoffTime);
  const step = rotation.type === 'weekly' ? 7 : 1;
  const fromDate = from.toPlainDate();
  // Weekly: the first handoff day on or after the start date; daily: the start date itself.
  const anchor = rotation.type === 'weekly' ? fromDate.add({ days: (rotation.handoffDay - fromDate.dayOfWeek + 7) % 7 }) : fromDate;
  return {
    candidate: (k) => anchor.add({ days: k * step }).toZonedDateTime({ timeZone, plainTime }).epochMilliseconds,
    estimate: (at) => Math.floor(anchor.until(local(at).toPlainDate(), { largestUnit: 'days' }).days / step),
  };
}

/**
 * Turn 0 runs from `effectiveFrom` to the first handoff strictly after it; turn k >= 1 starts at
 * that handoff's k-th successor. Participants take turns in `position` order.
 */
export function turnSource(rotation: RotationSpec, timeZone: string): TurnSource | null {
  const users = [...rotation.participants].sort((a, b) => a.position - b.position).map((p) => p.userId);
  if (users.length === 0) return null;
  const effectiveFrom = Date.parse(rotation.effectiveFrom);
  const effectiveUntil = rotation.effectiveUntil === null ? Number.POSITIVE_INFINITY : Date.parse(rotation.effectiveUntil);
  const { candidate: compute, estimate } = cadence(rotation, timeZone, Temporal.Instant.fromEpochMilliseconds(effectiveFrom).toZonedDateTimeISO(timeZone));
  // Each candidate costs a time-zone lookup; neighbouring turns and the index search share them.
  const known = new Map<number, number>();
  const candidate = (k: number): number => {
    let at = known.get(k);
    if (at === undefined) known.set(k, (at = compute(k)));
    return at;
  };
  const firstHandoff = candidate(0) > effectiveFrom ? 0 : 1;

  const boundary = (index: number) => (index === 0 ? effectiveFrom : candidate(firstHandoff + index - 1));
  const userOf = (index: number) => users[index % users.length] as number;

  /** The last candidate at or before `at` (may be below `firstHandoff`). */
  const lastAtOrBefore = (at: number): number => {
    let k = estimate(at);
    while (candidate(k + 1) <= at) k++;
    while (k >= firstHandoff && candidate(k) > at) k--;
    return k;
  };

  const indexAt = (at: number): number => Math.max(0, lastAtOrBefore(at) - firstHandoff + 1);

  const turn = (index: number): Turn => ({ index, userId: userOf(index), start: boundary(index), end: Math.min(boundary(index + 1), effectiveUntil) });

  return {
    rotation,
    turnAt(at) {
      if (at < effectiveFrom || at >= effectiveUntil) return null;
      return turn(indexAt(at));
    },
    turnsIn(from, to) {
      const first = Math.max(from, effectiveFrom);
      const last = Math.min(to, effectiveUntil);
      const turns: Turn[] = [];
      if (first >= last) return turns;
      for (let index = indexAt(first); ; index++) {
        const next = turn(index);
        if (next.start >= last) break;
        if (next.end > next.start) turns.push(next);
      }
      return turns;
    },
  };
}
