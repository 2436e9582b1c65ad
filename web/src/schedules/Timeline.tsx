import { useEffect, useMemo, useRef, useState, type PointerEvent } from 'react';
import { formatIn, wallClock } from '../ui/time';
import { personName, type Gap, type Member, type Override, type Rotation, type Shift } from './api';
import type { ScheduleTimeline } from './timeline';

export type Span = { startAt: string; endAt: string; replacedUserId: number | null };

type Props = {
  timezone: string;
  /** The local days' starts and the range's end, as the server resolved them in the zone. */
  dayStarts: readonly string[];
  to: string;
  rotations: readonly Rotation[];
  /** Each layer's own turns over the range, from the same read as the final shifts. */
  layers: ScheduleTimeline['layers'];
  overrides: readonly Override[];
  shifts: readonly Shift[];
  gaps: readonly Gap[];
  members: readonly Member[] | undefined;
  /** Set when the viewer may take a shift: a final shift (or a dragged span) becomes an override to create. */
  onTake?: ((span: Span) => void) | undefined;
};

/** Colour by person, stable across rows, so one person's turns read as one colour everywhere. */
const who = (userId: number) => `who-${userId % 6}`;

/**
 * The final schedule for the local days of the schedule's zone, with each layer's own turns and
 * the overrides drawn on their own rows above it, and the stretches nobody covers marked on the
 * final row. Each row is a list, so a screen reader reads the shifts in order; blocks sit at their
 * true instants, so a 23-hour DST day is a little narrower than the others.
 *
 * Everything here is drawn from the server's one read (`/timeline`) with Intl alone: the zone's
 * arithmetic (Temporal, `zoned.ts`) is loaded after the first paint, for snapping a drag.
 */
export function Timeline({ timezone, dayStarts: days, to, rotations, layers: turnsByLayer, overrides, shifts, gaps, members, onTake }: Props) {
  const range = useMemo(() => {
    const dayStarts = days.map((day) => Date.parse(day));
    return { start: dayStarts[0] ?? Date.parse(to), end: Date.parse(to), dayStarts };
  }, [days, to]);
  const { start, end } = range;
  const place = (a: number, b: number) => {
    const left = ((Math.max(a, start) - start) / (end - start)) * 100;
    const right = ((Math.min(b, end) - start) / (end - start)) * 100;
    return { left: `${left}%`, width: `${Math.max(right - left, 0.15)}%` };
  };
  const layers = useMemo(() => {
    const byId = new Map(rotations.map((rotation) => [rotation.id, rotation]));
    return turnsByLayer.flatMap(({ rotationId, turns }) => {
      const rotation = byId.get(rotationId);
      return rotation ? [{ rotation, turns: turns.map((turn, index) => ({ index, userId: turn.userId, start: Date.parse(turn.startAt), end: Date.parse(turn.endAt) })) }] : [];
    });
  }, [rotations, turnsByLayer]);
  const name = (userId: number) => personName(members, userId);
  const when = (a: number, b: number) => `${formatIn(a, timezone)} to ${formatIn(b, timezone)}`;
  const now = Date.now();

  return (
    <div className="tl" data-from={new Date(start).toISOString()} data-to={new Date(end).toISOString()}>
      <div className="tl-row tl-head" aria-hidden="true">
        <span className="tl-label" />
        <div className="tl-track">
          {range.dayStarts.map((dayStart, i) => (
            <span key={dayStart} className="tl-day" style={place(dayStart, range.dayStarts[i + 1] ?? end)}>
              {formatIn(dayStart, timezone, 'day')}
            </span>
          ))}
        </div>
      </div>
      {layers.map(({ rotation, turns }) => (
        <div key={rotation.id} className="tl-row" role="group" aria-label={`Layer ${rotation.layerPosition + 1}: ${rotation.name ?? rotation.type}`}>
          <span className="tl-label" aria-hidden="true">
            Layer {rotation.layerPosition + 1}
            <small>{rotation.name ?? rotation.type}</small>
          </span>
          <ul className="tl-track">
            {turns.map((turn) => (
              <li
                key={turn.index}
                className={`tl-block ${who(turn.userId)}`}
                style={place(turn.start, turn.end)}
                data-layer={rotation.layerPosition}
                data-start={new Date(turn.start).toISOString()}
              >
                <span className="tl-name">{name(turn.userId)}</span>
                <span className="visually-hidden">, {when(turn.start, turn.end)}</span>
              </li>
            ))}
          </ul>
        </div>
      ))}
      <div className="tl-row" role="group" aria-label="Overrides">
        <span className="tl-label" aria-hidden="true">
          Overrides
        </span>
        <ul className="tl-track">
          {overrides.map((o) => {
            const a = Date.parse(o.startAt);
            const b = Date.parse(o.endAt);
            return (
              <li key={o.id} className={`tl-block tl-override ${who(o.overrideUserId)}`} style={place(a, b)} data-override={o.id}>
                <span className="tl-name">{name(o.overrideUserId)}</span>
                <span className="visually-hidden">
                  {o.replacedUserId === null ? '' : ` instead of ${name(o.replacedUserId)}`}, {when(a, b)}
                </span>
              </li>
            );
          })}
        </ul>
      </div>
      <FinalRow {...{ timezone, start, end, shifts, gaps, name, when, place, onTake }} />
      {now >= start && now < end ? <div className="tl-now" style={{ left: `calc(10rem + (100% - 10rem) * ${(now - start) / (end - start)})` }} aria-hidden="true" /> : null}
    </div>
  );
}

type FinalProps = {
  timezone: string;
  start: number;
  end: number;
  shifts: readonly Shift[];
  gaps: readonly Gap[];
  name: (userId: number) => string;
  when: (a: number, b: number) => string;
  place: (a: number, b: number) => { left: string; width: string };
  onTake?: ((span: Span) => void) | undefined;
};

/** The final row: who is actually paged. A drag across it selects a span to take over. */
function FinalRow({ timezone, start, end, shifts, gaps, name, when, place, onTake }: FinalProps) {
  const track = useRef<HTMLUListElement>(null);
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  // A drag that starts and ends on one shift's button also clicks it: that click is the drag's, not "take this shift".
  const dragged = useRef(false);
  const snap = useSnap(onTake !== undefined);
  const at = (event: PointerEvent) => {
    const box = track.current?.getBoundingClientRect();
    if (!box) return start;
    const ratio = Math.min(Math.max((event.clientX - box.left) / box.width, 0), 1);
    return snap(Math.round(start + ratio * (end - start)), timezone);
  };
  const pointer = onTake
    ? {
        onPointerDown: (event: PointerEvent) => {
          if (event.button !== 0) return;
          dragged.current = false;
          const t = at(event);
          setDrag({ from: t, to: t });
        },
        onPointerMove: (event: PointerEvent) => {
          if (drag) setDrag({ ...drag, to: at(event) });
        },
        onPointerUp: (event: PointerEvent) => {
          // The span ends where the pointer is released: the last move's render may not have landed yet.
          const to = drag ? at(event) : undefined;
          if (drag && to !== undefined && drag.from !== to) {
            const [a, b] = drag.from < to ? [drag.from, to] : [to, drag.from];
            dragged.current = true;
            // The click, if any, comes in this same input task; a later Enter on a button is the keyboard's own.
            window.setTimeout(() => (dragged.current = false), 0);
            onTake({ startAt: new Date(a).toISOString(), endAt: new Date(b).toISOString(), replacedUserId: null });
          }
          setDrag(null);
        },
        onPointerLeave: () => setDrag(null),
      }
    : {};
  return (
    <div className="tl-row tl-final" role="group" aria-label="Final schedule">
      <span className="tl-label" aria-hidden="true">
        Final
        <small>who is paged</small>
      </span>
      <ul className="tl-track" ref={track} {...pointer}>
        {shifts.map((shift) => {
          const a = Date.parse(shift.startAt);
          const b = Date.parse(shift.endAt);
          const label = `${name(shift.userId)}${shift.overrideId === null ? '' : ' (override)'}`;
          const data = {
            'data-user': shift.userId,
            'data-start': shift.startAt,
            'data-end': shift.endAt,
            'data-local-start': wallClock(a, timezone),
            'data-local-end': wallClock(b, timezone),
            'data-source': shift.overrideId === null ? `layer-${shift.layerPosition}` : 'override',
          };
          return (
            <li
              key={`${shift.startAt}-${shift.userId}`}
              className={`tl-block tl-shift ${who(shift.userId)}${shift.overrideId === null ? '' : ' tl-override'}`}
              style={place(a, b)}
              {...data}
            >
              {onTake ? (
                <button
                  type="button"
                  className="tl-take"
                  onClick={() => {
                    if (dragged.current) {
                      dragged.current = false;
                      return;
                    }
                    onTake({ startAt: new Date(Math.max(a, start)).toISOString(), endAt: new Date(Math.min(b, end)).toISOString(), replacedUserId: shift.userId });
                  }}
                >
                  <span className="tl-name">{label}</span>
                  <span className="tl-time">{wallClock(a, timezone)}</span>
                  <span className="visually-hidden">, {when(a, b)}. Take this shift</span>
                </button>
              ) : (
                <>
                  <span className="tl-name">{label}</span>
                  <span className="tl-time" aria-hidden="true">
                    {wallClock(a, timezone)}
                  </span>
                  <span className="visually-hidden">, {when(a, b)}</span>
                </>
              )}
            </li>
          );
        })}
        {gaps.map((gap) => {
          const a = Date.parse(gap.startAt);
          const b = Date.parse(gap.endAt);
          return (
            <li key={gap.startAt} className="tl-block tl-gap" style={place(a, b)} data-gap-start={gap.startAt}>
              <span className="tl-name">No one</span>
              <span className="visually-hidden">on call, {when(a, b)}</span>
            </li>
          );
        })}
        {drag && drag.from !== drag.to ? <li className="tl-selection" style={place(Math.min(drag.from, drag.to), Math.max(drag.from, drag.to))} aria-hidden="true" /> : null}
      </ul>
    </div>
  );
}

type Snap = (ms: number, timeZone: string) => number;
/** Until the zone's arithmetic has loaded, a drag snaps to the half hour in UTC: the same for every zone whose offset is whole or half hours. */
const utcHalfHour: Snap = (ms) => Math.round(ms / 1_800_000) * 1_800_000;

/** The half-hour snap of the zone's wall clock, loaded after the first paint when the viewer may drag. */
function useSnap(wanted: boolean): Snap {
  const [snap, setSnap] = useState<{ fn: Snap }>({ fn: utcHalfHour });
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    void import('./zoned').then((zoned) => live && setSnap({ fn: zoned.snapHalfHour }));
    return () => {
      live = false;
    };
  }, [wanted]);
  return snap.fn;
}
