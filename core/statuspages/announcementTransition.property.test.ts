import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ANNOUNCEMENT_IMPACTS, ANNOUNCEMENT_STATUSES, type AnnouncementStatus } from './announcementSchema.js';
import {
  inEffect,
  maintenanceInProgress,
  phaseOf,
  transitionAnnouncement,
  type AnnouncementEffect,
  type AnnouncementInput,
  type AnnouncementState,
  type AnnouncementTransitionResult,
} from './announcementTransition.js';

const T0 = Date.parse('2026-06-01T12:00:00.000Z');
const at = (seconds: number): Date => new Date(T0 + seconds * 1000);
const iso = (seconds: number): string => at(seconds).toISOString();

const status = fc.constantFrom(...ANNOUNCEMENT_STATUSES);
const impact = fc.constantFrom(...ANNOUNCEMENT_IMPACTS);
const ids = fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { maxLength: 4 });
const body = fc.string({ minLength: 1, maxLength: 20 });

const input: fc.Arbitrary<AnnouncementInput> = fc.oneof(
  fc.record({
    type: fc.constant('patch' as const),
    title: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
    status: fc.option(status, { nil: undefined }),
    impact: fc.option(fc.option(impact), { nil: undefined }),
    componentIds: fc.option(ids, { nil: undefined }),
  }),
  fc.record({ type: fc.constant('post' as const), body, status: fc.option(status, { nil: undefined }) }),
  fc
    .integer({ min: 0, max: 7200 })
    .chain((start) => fc.integer({ min: 1, max: 7200 }).map((length) => ({ type: 'reschedule' as const, scheduledFor: iso(start), scheduledUntil: iso(start + length) }))),
  fc.constant({ type: 'tick' as const }),
);

/** A scheduled or plain announcement, then inputs at non-decreasing instants (the sweep's clock moves forward). */
const scenario = fc.record({
  scheduled: fc.option(fc.record({ start: fc.integer({ min: 0, max: 3600 }), length: fc.integer({ min: 1, max: 3600 }) }), { nil: undefined }),
  initialStatus: fc.option(status, { nil: undefined }),
  steps: fc.array(fc.record({ input, advance: fc.integer({ min: 0, max: 1800 }) }), { maxLength: 30 }),
});

type Outcome = { before: AnnouncementState; input: AnnouncementInput; now: Date; result: AnnouncementTransitionResult };

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function run({ scheduled, initialStatus, steps }: Scenario) {
  const created = transitionAnnouncement(
    null,
    {
      type: 'create',
      title: 'Database upgrade',
      status: initialStatus,
      componentIds: [1, 2],
      body: 'We are on it',
      scheduledFor: scheduled ? iso(scheduled.start) : undefined,
      scheduledUntil: scheduled ? iso(scheduled.start + scheduled.length) : undefined,
    },
    at(0),
  );
  if (!created.ok) throw new Error(created.message);
  let state = created.state;
  let clock = 0;
  const states = [state];
  const effects: AnnouncementEffect[] = [...created.effects];
  const outcomes: Outcome[] = [];
  for (const step of steps) {
    clock += step.advance;
    const now = at(clock);
    const result = transitionAnnouncement(state, step.input, now);
    outcomes.push({ before: state, input: step.input, now, result });
    if (result.ok) {
      state = result.state;
      effects.push(...result.effects);
    }
    states.push(state);
  }
  return { created, states, effects, outcomes };
}

describe('transitionAnnouncement (properties)', () => {
  it('keeps resolvedAt set exactly while RESOLVED', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        for (const state of run(s).states) expect(state.resolvedAt !== null).toBe(state.status === 'RESOLVED');
      }),
    );
  });

  it('accepts every status move of the spec table, from any status to the given one', () => {
    fc.assert(
      fc.property(scenario, status, status, body, (s, via, to, text) => {
        const state = run(s).states.at(-1)!;
        const viaPatch = transitionAnnouncement(state, { type: 'patch', status: via }, at(90_000));
        expect(viaPatch.ok && viaPatch.state.status).toBe(via);
        if (!viaPatch.ok) return;
        const viaPost = transitionAnnouncement(viaPatch.state, { type: 'post', status: to, body: text }, at(90_001));
        expect(viaPost.ok && viaPost.state.status).toBe(to);
      }),
    );
  });

  it('bumps the revision by one per change, and an unchanged result has no effects', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        for (const { before, result } of run(s).outcomes) {
          if (!result.ok) continue;
          if (result.changed) expect(result.state.revision).toBe(before.revision + 1);
          else expect(result).toEqual({ ok: true, changed: false, state: before, effects: [] });
        }
      }),
    );
  });

  it('names every effect once (a replayed write emits nothing twice), one notice per change', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { effects, outcomes } = run(s);
        const keys = effects.map((e) => e.key);
        expect(new Set(keys).size).toBe(keys.length);
        for (const { result } of outcomes) {
          if (result.ok && result.changed) expect(result.effects.filter((e) => e.type === 'notify')).toHaveLength(1);
        }
      }),
    );
  });

  it('appends exactly one timeline entry per post, with its body and status; a patch appends none', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        for (const { input: applied, result } of run(s).outcomes) {
          if (!result.ok) continue;
          const entries = result.effects.filter((e) => e.type === 'timeline');
          if (applied.type === 'post') expect(entries).toEqual([expect.objectContaining({ body: applied.body, status: applied.status ?? null })]);
          if (applied.type === 'patch') expect(entries).toEqual([]);
        }
      }),
    );
  });

  it('starts and completes scheduled maintenance by time alone, each at most once, never early', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { effects, outcomes } = run(s);
        const notices = effects.flatMap((e) => (e.type === 'notify' ? [e.notice] : []));
        expect(notices.filter((n) => n === 'maintenance.completed').length).toBeLessThanOrEqual(1);
        let started = false;
        for (const { before, input: applied, now, result } of outcomes) {
          if (!result.ok || !result.changed) continue;
          // Only a reschedule into the future may start the maintenance a second time.
          if (applied.type === 'reschedule') started = result.state.maintenanceStartedAt !== null;
          if (applied.type !== 'tick') continue;
          if (result.effects.some((e) => e.type === 'notify' && e.notice === 'maintenance.started')) {
            expect(started).toBe(false);
            started = true;
          }
          expect(before.scheduledFor).not.toBeNull();
          expect(now.getTime()).toBeGreaterThanOrEqual(Date.parse(before.scheduledFor!));
          const notice = result.effects.find((e) => e.type === 'notify');
          if (notice?.type === 'notify' && notice.notice === 'maintenance.completed') {
            expect(now.getTime()).toBeGreaterThanOrEqual(Date.parse(before.scheduledUntil!));
            expect(result.state).toMatchObject({ status: 'RESOLVED', resolvedAt: before.scheduledUntil });
          }
        }
      }),
    );
  });

  it('makes a tick idempotent: a second tick at the same instant changes nothing', () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: 0, max: 20_000 }), (s, later) => {
        const state = run(s).states.at(-1)!;
        const once = transitionAnnouncement(state, { type: 'tick' }, at(later));
        if (!once.ok) throw new Error('tick failed');
        expect(transitionAnnouncement(once.state, { type: 'tick' }, at(later))).toMatchObject({ ok: true, changed: false });
      }),
    );
  });

  it('never closes a maintenance again that someone reopened after it ended', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3600 }),
        status.filter((s): s is Exclude<AnnouncementStatus, 'RESOLVED'> => s !== 'RESOLVED'),
        (length, reopenTo) => {
          const created = transitionAnnouncement(null, { type: 'create', title: 't', componentIds: [1], scheduledFor: iso(10), scheduledUntil: iso(10 + length) }, at(0));
          if (!created.ok) throw new Error(created.message);
          const completed = transitionAnnouncement(created.state, { type: 'tick' }, at(10 + length + 5));
          if (!completed.ok) throw new Error('tick failed');
          expect(completed.state.status).toBe('RESOLVED');
          const reopened = transitionAnnouncement(completed.state, { type: 'post', body: 'Still seeing errors', status: reopenTo }, at(10 + length + 60));
          if (!reopened.ok) throw new Error('post failed');
          expect(transitionAnnouncement(reopened.state, { type: 'tick' }, at(10 + length + 120))).toMatchObject({ ok: true, changed: false });
        },
      ),
    );
  });

  it('shows scheduled maintenance as SCHEDULED before its start, in progress inside its window, in effect from its start', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3600 }), fc.integer({ min: 1, max: 3600 }), fc.integer({ min: 0, max: 10_000 }), (start, length, probe) => {
        const created = transitionAnnouncement(null, { type: 'create', title: 't', componentIds: [], scheduledFor: iso(start), scheduledUntil: iso(start + length) }, at(0));
        if (!created.ok) throw new Error(created.message);
        const phase = phaseOf(created.state, at(probe));
        expect(phase).toBe(probe < start ? 'SCHEDULED' : probe < start + length ? 'IN_PROGRESS' : 'ACTIVE');
        expect(maintenanceInProgress(created.state, at(probe))).toBe(phase === 'IN_PROGRESS');
        expect(inEffect(created.state, at(probe))).toBe(probe >= start);
      }),
    );
  });
});

describe('transitionAnnouncement (examples)', () => {
  it('refuses a schedule that is already over, and a window that ends before it starts', () => {
    expect(transitionAnnouncement(null, { type: 'create', title: 't', componentIds: [], scheduledFor: iso(-120), scheduledUntil: iso(-60) }, at(0))).toMatchObject({
      ok: false,
      code: 'SCHEDULE_IN_PAST',
    });
    expect(transitionAnnouncement(null, { type: 'create', title: 't', componentIds: [], scheduledFor: iso(60), scheduledUntil: iso(60) }, at(0))).toMatchObject({
      ok: false,
      code: 'INVALID_SCHEDULE',
    });
    expect(transitionAnnouncement(null, { type: 'create', title: 't', componentIds: [], scheduledFor: iso(60) }, at(0))).toMatchObject({ ok: false, code: 'INVALID_SCHEDULE' });
  });

  it('creates with INVESTIGATING (IDENTIFIED for maintenance), the body as first entry, and the right notice', () => {
    const plain = transitionAnnouncement(null, { type: 'create', title: 't', componentIds: [1], body: 'Looking into it' }, at(0));
    expect(plain).toMatchObject({ ok: true, state: { status: 'INVESTIGATING', impact: null, revision: 1 } });
    expect(plain.ok && plain.effects.map((e) => (e.type === 'notify' ? e.notice : e.body))).toEqual(['Looking into it', 'announcement.created']);
    const maintenance = transitionAnnouncement(null, { type: 'create', title: 't', componentIds: [1], scheduledFor: iso(60), scheduledUntil: iso(120) }, at(0));
    expect(maintenance).toMatchObject({ ok: true, state: { status: 'IDENTIFIED' } });
    expect(maintenance.ok && maintenance.effects).toEqual([expect.objectContaining({ type: 'notify', notice: 'maintenance.scheduled' })]);
  });

  it('runs a maintenance: started at scheduledFor, completed at scheduledUntil with a closing entry', () => {
    const created = transitionAnnouncement(null, { type: 'create', title: 't', componentIds: [1], scheduledFor: iso(60), scheduledUntil: iso(120) }, at(0));
    if (!created.ok) throw new Error(created.message);
    expect(transitionAnnouncement(created.state, { type: 'tick' }, at(59))).toMatchObject({ changed: false });
    const started = transitionAnnouncement(created.state, { type: 'tick' }, at(75));
    expect(started).toMatchObject({ ok: true, changed: true, state: { maintenanceStartedAt: iso(60), status: 'IDENTIFIED' } });
    if (!started.ok) return;
    const completed = transitionAnnouncement(started.state, { type: 'tick' }, at(130));
    expect(completed).toMatchObject({ ok: true, state: { status: 'RESOLVED', resolvedAt: iso(120), maintenanceCompletedAt: iso(120) } });
    expect(completed.ok && completed.effects.map((e) => e.type)).toEqual(['timeline', 'notify']);
  });

  it('resolves a cancelled window with the caller’s note, and a patch repeating current values changes nothing', () => {
    const created = transitionAnnouncement(null, { type: 'create', title: 't', componentIds: [1, 2], impact: 'MINOR', scheduledFor: iso(60), scheduledUntil: iso(120) }, at(0));
    if (!created.ok) throw new Error(created.message);
    expect(transitionAnnouncement(created.state, { type: 'patch', title: 't', impact: 'MINOR', componentIds: [1, 2] }, at(1))).toMatchObject({ changed: false });
    const cancelled = transitionAnnouncement(created.state, { type: 'post', status: 'RESOLVED', body: 'The maintenance window was cancelled.' }, at(30));
    expect(cancelled).toMatchObject({ ok: true, state: { status: 'RESOLVED', resolvedAt: iso(30), maintenanceCompletedAt: null } });
    expect(cancelled.ok && cancelled.effects.at(-1)).toMatchObject({ notice: 'announcement.resolved' });
  });

  it('reschedules only scheduled maintenance', () => {
    const plain = transitionAnnouncement(null, { type: 'create', title: 't', componentIds: [] }, at(0));
    if (!plain.ok) throw new Error(plain.message);
    expect(transitionAnnouncement(plain.state, { type: 'reschedule', scheduledFor: iso(10), scheduledUntil: iso(20) }, at(0))).toMatchObject({ ok: false, code: 'NOT_SCHEDULED' });
  });
});
