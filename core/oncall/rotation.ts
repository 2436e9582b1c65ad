import { MAX_RANGE_DAYS, type Gap, type HoursReportEntry, type Shift } from './schema.js';
import { hoursByUser } from './hours.js';
import { turnSource, type RotationSpec, type Turn, type TurnSource } from './turns.js';

/**
 * Who is on call, computed purely from a schedule (docs/guide/oncall-and-escalation.md):
 * - Layers: at instant T the lowest `layerPosition` whose rotation has someone on call wins. Two
 *   rotations on one layer (an edited layer: the old one ends where the new one starts) are
 *   ordered by the later `effectiveFrom`, then by their order in the schedule.
 * - Overrides active at T (`startAt <= T < endAt`): an unconditional one (`replacedUserId` null)
 *   puts its user on call; one with `replacedUserId` applies only while the layers put that user
 *   on call (overrides do not chain). The latest-created override wins when several apply.
 * The final schedule is cut into shifts wherever the source changes: a rotation's turn, or one
 * override. Consecutive turns of the same person stay separate shifts (one handoff notice each).
 */
export type { RotationSpec } from './turns.js';

export type OverrideSpec = {
  id: number;
  overrideUserId: number;
  startAt: string;
  endAt: string;
  replacedUserId: number | null;
  createdAt: string;
};

export type ScheduleSpec = {
  timezone: string;
  rotations: readonly RotationSpec[];
  overrides: readonly OverrideSpec[];
};

export type OnCallAt = {
  at: string;
  userId: number;
  layerPosition: number | null;
  rotationId: number | null;
  overrideId: number | null;
  shiftStart: string;
  shiftEnd: string;
};

type Layer = { source: TurnSource; order: number; effectiveFrom: number };
type Window = { id: number; userId: number; replaces: number | null; start: number; end: number; createdAt: number };
type Base = { layer: Layer; turn: Turn };
type Piece = Base & { start: number; end: number };
type Segment = { key: string; start: number; end: number; userId: number; base: Base | null; override: Window | null };

const DAY_MS = 86_400_000;
const iso = (ms: number): string => new Date(ms).toISOString();

/** Layer order: lower layerPosition first, then the later effectiveFrom, then schedule order. */
function layersOf(schedule: ScheduleSpec): Layer[] {
  const layers: Layer[] = [];
  schedule.rotations.forEach((rotation, order) => {
    const source = turnSource(rotation, schedule.timezone);
    if (source) layers.push({ source, order, effectiveFrom: Date.parse(rotation.effectiveFrom) });
  });
  return layers.sort((a, b) => a.source.rotation.layerPosition - b.source.rotation.layerPosition || b.effectiveFrom - a.effectiveFrom || a.order - b.order);
}

function windowsOf(schedule: ScheduleSpec, from: number, to: number): Window[] {
  return schedule.overrides
    .map((o) => ({
      id: o.id,
      userId: o.overrideUserId,
      replaces: o.replacedUserId,
      start: Date.parse(o.startAt),
      end: Date.parse(o.endAt),
      createdAt: Date.parse(o.createdAt),
    }))
    .filter((w) => w.start < to && w.end > from && w.end > w.start);
}

/** The override that applies at `at` over the layers' choice, latest-created first. */
function overrideAt(windows: readonly Window[], at: number, baseUserId: number | null): Window | null {
  let winner: Window | null = null;
  for (const w of windows) {
    if (at < w.start || at >= w.end) continue;
    if (w.replaces !== null && w.replaces !== baseUserId) continue;
    if (!winner || w.createdAt > winner.createdAt || (w.createdAt === winner.createdAt && w.id > winner.id)) winner = w;
  }
  return winner;
}

function segmentAt(base: Base | null, windows: readonly Window[], start: number, end: number): Segment | null {
  const override = overrideAt(windows, start, base ? base.turn.userId : null);
  if (override) return { key: `o${override.id}`, start, end, userId: override.userId, base, override };
  if (base) return { key: `r${base.layer.order}:${base.turn.index}`, start, end, userId: base.turn.userId, base, override: null };
  return null;
}

/**
 * The layered schedule before overrides, ordered: each layer fills only what the layers above it
 * leave empty, so a fully covering top layer is the only one whose turns are computed.
 */
function layered(layers: readonly Layer[], from: number, to: number): Piece[] {
  let holes: [number, number][] = [[from, to]];
  const pieces: Piece[] = [];
  for (const layer of layers) {
    const left: [number, number][] = [];
    for (const [a, b] of holes) {
      let cursor = a;
      for (const turn of layer.source.turnsIn(a, b)) {
        const start = Math.max(turn.start, a);
        const end = Math.min(turn.end, b);
        if (start > cursor) left.push([cursor, start]);
        pieces.push({ layer, turn, start, end });
        cursor = end;
      }
      if (cursor < b) left.push([cursor, b]);
    }
    holes = left;
    if (holes.length === 0) break;
  }
  return pieces.sort((x, y) => x.start - y.start);
}

/** The final schedule over `[from, to)` in epoch ms, clipped to the range, with the winning sources. */
function segments(schedule: ScheduleSpec, from: number, to: number): Segment[] {
  if (to <= from) return [];
  const pieces = layered(layersOf(schedule), from, to);
  const windows = windowsOf(schedule, from, to);
  const cuts = new Set<number>([from, to]);
  const cut = (at: number) => {
    if (at > from && at < to) cuts.add(at);
  };
  for (const p of pieces) cut(p.start), cut(p.end);
  for (const w of windows) cut(w.start), cut(w.end);
  const instants = [...cuts].sort((a, b) => a - b);

  // Every cut is a piece or override edge, so one instant per elementary interval decides it; the
  // cursor over the (non-overlapping, ordered) pieces only moves forward.
  let cursor = 0;
  const result: Segment[] = [];
  for (let i = 0; i + 1 < instants.length; i++) {
    const start = instants[i] as number;
    const end = instants[i + 1] as number;
    while (cursor < pieces.length && (pieces[cursor] as Piece).end <= start) cursor++;
    const piece = pieces[cursor];
    const segment = segmentAt(piece && piece.start <= start ? piece : null, windows, start, end);
    if (!segment) continue;
    const previous = result[result.length - 1];
    if (previous && previous.key === segment.key && previous.end === start) previous.end = end;
    else result.push(segment);
  }
  return result;
}

function toShift(segment: Segment): Shift {
  const byRotation = segment.override === null && segment.base !== null;
  return {
    userId: segment.userId,
    startAt: iso(segment.start),
    endAt: iso(segment.end),
    layerPosition: byRotation && segment.base ? segment.base.layer.source.rotation.layerPosition : null,
    rotationId: byRotation && segment.base ? segment.base.layer.source.rotation.id : null,
    overrideId: segment.override ? segment.override.id : null,
  };
}

/** The final shifts (after layering and overrides) in `[from, to)`, clipped to the range, in order. */
export function finalShifts(schedule: ScheduleSpec, from: Date, to: Date): Shift[] {
  return segments(schedule, from.getTime(), to.getTime()).map(toShift);
}

/**
 * Who is on call at `at`, or null. `shiftStart`/`shiftEnd` bound the final shift containing `at`:
 * a rotation turn (cut where a higher layer or an override takes over) or one override, and are
 * clipped to MAX_RANGE_DAYS either side of `at` so an override of years stays cheap to answer.
 */
export function onCallAt(schedule: ScheduleSpec, at: Date): OnCallAt | null {
  const t = at.getTime();
  let base: Base | null = null;
  for (const layer of layersOf(schedule)) {
    const turn = layer.source.turnAt(t);
    if (turn) {
      base = { layer, turn };
      break;
    }
  }
  const override = overrideAt(windowsOf(schedule, t, t + 1), t, base ? base.turn.userId : null);
  const source = override ?? base?.turn;
  if (!source) return null;
  // The shift cannot outlast its source, so computing over the source's span finds its true edges.
  const [sourceStart, sourceEnd] = [source.start, source.end];
  const limit = MAX_RANGE_DAYS * DAY_MS;
  const found = segments(schedule, Math.max(sourceStart, t - limit), Math.min(sourceEnd, t + limit)).find((s) => s.start <= t && t < s.end);
  if (!found) return null;
  const shift = toShift(found);
  return {
    at: iso(t),
    userId: shift.userId,
    layerPosition: shift.layerPosition,
    rotationId: shift.rotationId,
    overrideId: shift.overrideId,
    shiftStart: shift.startAt,
    shiftEnd: shift.endAt,
  };
}

/** Stretches of `[from, to)` with nobody on call: exactly the complement of the final shifts. */
export function gaps(schedule: ScheduleSpec, from: Date, to: Date): Gap[] {
  const result: Gap[] = [];
  let cursor = from.getTime();
  for (const s of segments(schedule, from.getTime(), to.getTime())) {
    if (s.start > cursor) result.push({ startAt: iso(cursor), endAt: iso(s.start) });
    cursor = s.end;
  }
  if (cursor < to.getTime()) result.push({ startAt: iso(cursor), endAt: iso(to.getTime()) });
  return result;
}

/**
 * Shifts and gaps whose true start lies in `[from, to)` (what handoff notices and gap notices
 * need): computing from one millisecond earlier tells a shift that begins at `from` from one that
 * was only clipped there.
 */
export function shiftsStartingIn(schedule: ScheduleSpec, from: Date, to: Date): Shift[] {
  return finalShifts(schedule, new Date(from.getTime() - 1), to).filter((s) => Date.parse(s.startAt) >= from.getTime());
}

export function gapsStartingIn(schedule: ScheduleSpec, from: Date, to: Date): Gap[] {
  return gaps(schedule, new Date(from.getTime() - 1), to).filter((g) => Date.parse(g.startAt) >= from.getTime());
}

/**
 * Hours on call per user in `[from, to)` from the final schedule, split by the schedule's local
 * calendar into weekday (Mon-Fri) and weekend (Sat, Sun), and night, which we define as 22:00 to
 * 07:00 local on any day (night hours are also counted in weekday or weekend). Hours are real
 * elapsed time, so a night across a DST change counts 8 or 10 hours.
 */
export function report(schedule: ScheduleSpec, from: Date, to: Date): HoursReportEntry[] {
  const pieces = segments(schedule, from.getTime(), to.getTime()).map((s) => ({ userId: s.userId, start: s.start, end: s.end }));
  return hoursByUser(pieces, schedule.timezone);
}
