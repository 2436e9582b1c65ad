import { lazy, Suspense, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { EmptyState } from '../ui/EmptyState';
import { allows, explainError } from '../ui/permission';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { useWorkspace } from '../workspace/context';
import { personName, useMembers, useOverrideMutations, type Member } from './api';
import { formatIn } from '../ui/time';
import { addCalendarDays, isCalendarDate, useRouteTimeline, type ScheduleTimeline } from './timeline';
import { CalendarLink } from './CalendarLink';
import { Timeline, type Span } from './Timeline';

// The parts that do the zone's arithmetic themselves (Temporal) load after the timeline is drawn.
const HoursReport = lazy(() => import('./HoursReport').then((m) => ({ default: m.HoursReport })));
const RotationsEditor = lazy(() => import('./RotationsEditor').then((m) => ({ default: m.RotationsEditor })));
const TakeShift = lazy(() => import('./TakeShift').then((m) => ({ default: m.TakeShift })));

/** One schedule: who is on call now, two weeks of it (from `?from=`, a local date), overrides, rotations, hours, calendar. */
export function SchedulePage() {
  // The route asked for it already (routes.tsx), while this screen's script loaded.
  const timeline = useRouteTimeline();
  const { workspaceId } = useWorkspace();
  const members = useMembers(workspaceId ?? 0);
  if (timeline.isPending) return <Skeleton label="Loading the schedule" lines={8} />;
  if (timeline.isError)
    return (
      <EmptyState title="Schedule not found">
        It may have been deleted, or belong to another workspace. <Link to="/schedules">All schedules</Link>
      </EmptyState>
    );
  return <ScheduleView timeline={timeline.data} members={members.data} />;
}

function ScheduleView({ timeline, members }: { timeline: ScheduleTimeline; members: Member[] | undefined }) {
  const { role, me } = useWorkspace();
  const toast = useToast();
  const [, setParams] = useSearchParams();
  const { schedule, fromDate: from, dayStarts, shifts, overrides, gaps } = timeline;
  const tz = schedule.timezone;
  const [span, setSpan] = useState<Span | null>(null);
  const [editing, setEditing] = useState(false);
  const { remove } = useOverrideMutations();
  const canTake = allows(role, 'MEMBER') && members !== undefined;
  const admin = allows(role, 'ADMIN');
  const go = (date: string) => setParams({ from: date });

  const dropOverride = (overrideId: number) =>
    remove.mutate(overrideId, {
      onSuccess: () => toast({ title: 'Override removed' }),
      onError: (err) => toast({ title: 'Could not remove the override', description: explainError(err, role), tone: 'error' }),
    });

  return (
    <div className="schedule-page">
      <div className="page-head">
        <div>
          <h1>{schedule.name}</h1>
          <p className="muted">
            Times in {tz}
            {schedule.description ? ` · ${schedule.description}` : ''}
            {schedule.enabled ? '' : ' · disabled'}
          </p>
        </div>
        <OnCallNow now={timeline.onCall} timezone={tz} />
      </div>
      <section aria-labelledby="timeline-title">
        <div className="page-head">
          <h2 id="timeline-title">
            {formatIn(Date.parse(dayStarts[0] ?? timeline.from), tz, 'day')} to {formatIn(Date.parse(dayStarts.at(-1) ?? timeline.from), tz, 'day')}
          </h2>
          <div className="button-row" role="group" aria-label="Which two weeks">
            <button type="button" className="button" onClick={() => go(addCalendarDays(from, -7))}>
              Previous week
            </button>
            <button type="button" className="button" onClick={() => setParams({})}>
              Today
            </button>
            <button type="button" className="button" onClick={() => go(addCalendarDays(from, 7))}>
              Next week
            </button>
            <label className="inline-form">
              <span className="visually-hidden">From</span>
              <input type="date" aria-label="Show two weeks from" value={from} onChange={(e) => isCalendarDate(e.target.value) && go(e.target.value)} />
            </label>
          </div>
        </div>
        <Timeline
          timezone={tz}
          dayStarts={dayStarts}
          to={timeline.to}
          rotations={schedule.rotations}
          layers={timeline.layers}
          overrides={overrides}
          shifts={shifts}
          gaps={gaps}
          members={members}
          onTake={canTake ? setSpan : undefined}
        />
        <p className={gaps.length > 0 ? 'coverage coverage-gap' : 'coverage'} data-gaps={gaps.length}>
          {gaps.length === 0
            ? 'Every hour of these two weeks is covered.'
            : `${gaps.length} coverage ${gaps.length === 1 ? 'gap' : 'gaps'}: ${gaps.map((g) => `${formatIn(Date.parse(g.startAt), tz)} to ${formatIn(Date.parse(g.endAt), tz)}`).join('; ')}.`}
        </p>
        {canTake ? <p className="field-hint">Choose a shift on the final row, or drag across it, to take that time over.</p> : null}
      </section>
      {span && members ? (
        <Suspense fallback={<Skeleton label="Loading the override form" lines={3} />}>
          <TakeShift key={`${span.startAt}-${span.endAt}`} scheduleId={schedule.id} timezone={tz} span={span} members={members} onDone={() => setSpan(null)} />
        </Suspense>
      ) : null}
      <section aria-labelledby="overrides-title">
        <h2 id="overrides-title">Overrides in these two weeks</h2>
        {overrides.length ? (
          <ul className="override-list">
            {overrides.map((o) => (
              <li key={o.id} data-override={o.id}>
                <strong>{personName(members, o.overrideUserId)}</strong>
                {o.replacedUserId === null ? '' : ` instead of ${personName(members, o.replacedUserId)}`}, {formatIn(Date.parse(o.startAt), tz)} to{' '}
                {formatIn(Date.parse(o.endAt), tz)}
                {o.reason ? <span className="muted"> · {o.reason}</span> : null}
                {admin || (allows(role, 'MEMBER') && o.overrideUserId === me?.id) ? (
                  <button
                    type="button"
                    className="button ghost danger"
                    onClick={() => dropOverride(o.id)}
                    aria-label={`Remove the override of ${personName(members, o.overrideUserId)} from ${formatIn(Date.parse(o.startAt), tz)}`}
                  >
                    Remove
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">None.</p>
        )}
      </section>
      <section aria-labelledby="rotations-title">
        <h2 id="rotations-title">Rotations</h2>
        {editing && members ? (
          <Suspense fallback={<Skeleton label="Loading the rotation editor" lines={4} />}>
            <RotationsEditor schedule={schedule} members={members} onClose={() => setEditing(false)} />
          </Suspense>
        ) : (
          <>
            {schedule.rotations.length === 0 ? (
              <p className="muted">No rotation yet: nobody is on call.</p>
            ) : (
              <ul className="rotation-list">
                {[...schedule.rotations]
                  .sort((a, b) => a.layerPosition - b.layerPosition)
                  .map((r) => (
                    <li key={r.id}>
                      <strong>
                        Layer {r.layerPosition + 1}: {r.name ?? r.type}
                      </strong>{' '}
                      · {r.type === 'custom' ? `${r.customShiftHours} h shifts` : `${r.type} at ${r.handoffTime.slice(0, 5)}`} · {r.participants.length}{' '}
                      {r.participants.length === 1 ? 'person' : 'people'}
                    </li>
                  ))}
              </ul>
            )}
            {admin ? (
              <button type="button" className="button" onClick={() => setEditing(true)}>
                Edit rotations
              </button>
            ) : null}
          </>
        )}
      </section>
      <Suspense fallback={<Skeleton label="Loading the hours report" lines={3} />}>
        <HoursReport key={from} scheduleId={schedule.id} timezone={tz} from={from} members={members} />
      </Suspense>
      {admin ? <CalendarLink scheduleId={schedule.id} /> : null}
    </div>
  );
}

function OnCallNow({ now, timezone }: { now: ScheduleTimeline['onCall']; timezone: string }) {
  const { user, shiftEnd } = now;
  return (
    <p className={`on-call-now card${user ? '' : ' coverage-gap'}`} data-on-call={user?.id ?? ''}>
      {user ? (
        <>
          On call now: <strong>{user.name ?? user.email}</strong>
          {shiftEnd ? ` until ${formatIn(Date.parse(shiftEnd), timezone)}` : ''}
        </>
      ) : (
        <strong>Nobody is on call now</strong>
      )}
    </p>
  );
}
