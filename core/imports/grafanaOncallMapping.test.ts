import { describe, expect, it } from 'vitest';
import { policyDraftOf } from './grafanaOncallChains.js';
import { OncallExport, type OncallSchedule, type OncallShift, type OncallStep } from './grafanaOncallPayload.js';
import { scheduleDraftOf } from './grafanaOncallSchedules.js';
import { overrideOf, rotationOf, type People } from './grafanaOncallShifts.js';

/** The pure mapping of OnCall shifts and chains (field shapes: the OnCall API reference, see test/support/grafanaOncall.ts). */

const ids: Record<string, number> = { UALEX: 1, UBOB: 2, UCAROL: 3 };
const people: People = { userIdOf: (id) => ids[id], label: (id) => `${id.toLowerCase()}@example.com` };
const now = new Date('2026-03-01T12:00:00Z');

const shift = (fields: Partial<OncallShift>): OncallShift => ({
  id: 'O1',
  name: 'Rotation',
  type: 'rolling_users',
  start: '2026-03-02T09:00:00',
  duration: 86_400,
  frequency: 'daily',
  rolling_users: [['UALEX'], ['UBOB']],
  ...fields,
});
const schedule = (fields: Partial<OncallSchedule> = {}): OncallSchedule => ({ id: 'S1', name: 'Ops', type: 'web', time_zone: 'Europe/Berlin', ...fields });
const step = (position: number, fields: Partial<OncallStep>): OncallStep => ({ id: `E${position}`, escalation_chain_id: 'F1', position, type: 'wait', ...fields });

describe('OnCall shifts as Vigil rotations', () => {
  it('keeps wall-clock handoffs across DST in the shift zone', () => {
    // 29 March 2026: Berlin goes to summer time; a weekly Monday 09:00 handoff stays at 09:00 local.
    const rotation = rotationOf(shift({ frequency: 'weekly', duration: 604_800, start: '2026-03-23T09:00:00' }), 'Europe/Berlin', people, now);
    expect(rotation).toMatchObject({ type: 'weekly', handoffDay: 1, handoffTime: '09:00', effectiveFrom: '2026-03-23T08:00:00.000Z' });
  });

  it('maps intervals to custom rotations and refuses what has gaps or overlaps', () => {
    expect(rotationOf(shift({ interval: 2, duration: 172_800 }), 'UTC', people, now)).toMatchObject({ type: 'custom', customShiftHours: 48 });
    expect(rotationOf(shift({ frequency: 'hourly', interval: 8, duration: 28_800 }), 'UTC', people, now)).toMatchObject({ type: 'custom', customShiftHours: 8 });
    expect(rotationOf(shift({ duration: 43_200 }), 'UTC', people, now)).toEqual({
      reason: 'on call 12 h of every 24 h: a Vigil rotation hands over at once, with no gap or overlap',
    });
    expect(rotationOf(shift({ duration: 90_000 }), 'UTC', people, now)).toMatchObject({ reason: expect.stringContaining('25 h of every 24 h') });
    expect(rotationOf(shift({ by_monthday: [1] }), 'UTC', people, now)).toMatchObject({ reason: expect.stringContaining('days of the month') });
    expect(rotationOf(shift({ frequency: null }), 'UTC', people, now)).toMatchObject({ reason: expect.stringContaining('frequency (none)') });
    expect(rotationOf(shift({ rolling_users: [] }), 'UTC', people, now)).toEqual({ reason: 'no users to rotate' });
    // Every day listed, or a weekly shift on its own start day only, is the plain rotation.
    expect(rotationOf(shift({ by_day: ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] }), 'UTC', people, now)).toMatchObject({ type: 'daily' });
    expect(rotationOf(shift({ frequency: 'weekly', duration: 604_800, by_day: ['MO'] }), 'UTC', people, now)).toMatchObject({ type: 'weekly', handoffDay: 1 });
    expect(rotationOf(shift({ frequency: 'weekly', duration: 604_800, by_day: ['TU'] }), 'UTC', people, now)).toMatchObject({ reason: expect.stringContaining('only on TU') });
  });

  it('starts a later rotation_start with the turn that contains it, counting groups from start', () => {
    const rotation = rotationOf(
      shift({
        frequency: 'hourly',
        interval: 12,
        duration: 43_200,
        start: '2026-03-01T08:00:00',
        rotation_start: '2026-03-02T10:00:00',
        rolling_users: [['UALEX'], ['UBOB'], ['UCAROL']],
        start_rotation_from_user_index: 1,
      }),
      'UTC',
      people,
      now,
    );
    // Two turns before 2 March 08:00 (bob, carol), so the turn containing 10:00 is alex's.
    expect(rotation).toMatchObject({
      effectiveFrom: '2026-03-02T08:00:00.000Z',
      participants: [
        { userId: 1, position: 0 },
        { userId: 2, position: 1 },
        { userId: 3, position: 2 },
      ],
    });
  });

  it('keeps a future until and refuses an ended rotation', () => {
    expect(rotationOf(shift({ until: '2026-06-01T00:00:00' }), 'Europe/Berlin', people, now)).toMatchObject({ effectiveUntil: '2026-05-31T22:00:00.000Z' });
    expect(rotationOf(shift({ until: '2026-02-01T00:00:00' }), 'UTC', people, now)).toMatchObject({ reason: expect.stringContaining('before this import') });
  });

  it('maps an override of one member to an unconditional override', () => {
    expect(overrideOf(shift({ type: 'override', users: ['UCAROL'], start: '2026-03-29T01:30:00', duration: 3600 }), 'Europe/Berlin', people, now)).toEqual({
      overrideUserId: 3,
      startAt: '2026-03-29T00:30:00.000Z',
      // 02:30 does not exist that night: resolved as iCalendar does, one hour later.
      endAt: '2026-03-29T01:30:00.000Z',
    });
    expect(overrideOf(shift({ type: 'override', users: ['UNOBODY'] }), 'UTC', people, now)).toEqual({ reason: 'needs unobody@example.com, not a member of this workspace' });
  });
});

describe('OnCall schedules', () => {
  it('uses the zone all rotations share, and refuses one of another zone', () => {
    const draft = scheduleDraftOf(
      schedule(),
      [shift({ id: 'O1', time_zone: 'America/New_York' }), shift({ id: 'O2', name: 'Second', time_zone: 'America/New_York' })],
      people,
      now,
    );
    expect(draft).toMatchObject({ timezone: 'America/New_York', rotations: [{ layerPosition: 0 }, { layerPosition: 0 }] });
    const mixed = scheduleDraftOf(schedule(), [shift({ id: 'O1' }), shift({ id: 'O2', name: 'Tokyo', time_zone: 'Asia/Tokyo' })], people, now);
    expect(mixed).toMatchObject({ timezone: 'Europe/Berlin', skipped: [{ kind: 'shift', name: 'Ops / Tokyo', reason: expect.stringContaining('differs from the schedule') }] });
    expect(scheduleDraftOf(schedule({ time_zone: 'Mars/Olympus' }), [], people, now)).toEqual({ reason: 'time zone Mars/Olympus is not an IANA time zone' });
    expect(scheduleDraftOf(schedule({ ical_url_overrides: 'https://example.com/o.ics' }), [], people, now)).toMatchObject({ skipped: [{ kind: 'overrides calendar' }] });
  });

  it('orders layers by level, highest first', () => {
    const draft = scheduleDraftOf(
      schedule(),
      [shift({ id: 'O1', name: 'Low', level: 0 }), shift({ id: 'O2', name: 'High', level: 7 }), shift({ id: 'O3', name: 'Mid', level: 2 })],
      people,
      now,
    );
    expect(draft).toMatchObject({
      rotations: [
        { name: 'High', layerPosition: 0 },
        { name: 'Mid', layerPosition: 1 },
        { name: 'Low', layerPosition: 2 },
      ],
    });
  });

  it('accepts a whole list page in place of its results', () => {
    const parsed = OncallExport.parse({ users: { count: 1, next: null, results: [{ id: 'UALEX', email: 'a@example.com' }] } });
    expect(parsed).toMatchObject({ users: [{ id: 'UALEX' }], schedules: [], on_call_shifts: [], escalation_chains: [], escalation_policies: [] });
  });
});

describe('OnCall chains as Vigil policies', () => {
  const chain = { id: 'F1', name: 'Chain' };
  const scheduleIdOf = (id: string) => (id === 'S1' ? 10 : undefined);

  it('adds waits up into delays and merges notifies between two waits into one step', () => {
    const draft = policyDraftOf(
      chain,
      [
        step(3, { type: 'notify_persons', persons_to_notify: ['UBOB', 'UALEX'] }),
        step(0, { type: 'notify_persons', persons_to_notify: ['UALEX'] }),
        step(1, { type: 'notify_on_call_from_schedule', notify_on_call_from_schedule: 'S1' }),
        step(2, { type: 'wait', duration: 90 }),
      ],
      people,
      scheduleIdOf,
    );
    expect(draft).toEqual({
      name: 'Chain',
      repeatCount: 0,
      skipped: [],
      steps: [
        {
          position: 0,
          delayMinutes: 0,
          targets: [
            { targetType: 'USER', targetUserId: 1 },
            { targetType: 'ON_CALL_SCHEDULE', targetScheduleId: 10 },
          ],
        },
        {
          position: 1,
          delayMinutes: 2,
          targets: [
            { targetType: 'USER', targetUserId: 2 },
            { targetType: 'USER', targetUserId: 1 },
          ],
        },
      ],
    });
  });

  it('repeats only from the last step, and refuses delays past a week', () => {
    const early = policyDraftOf(chain, [step(0, { type: 'repeat_escalation' }), step(1, { type: 'notify_persons', persons_to_notify: ['UALEX'] })], people, scheduleIdOf);
    expect(early).toMatchObject({ repeatCount: 0, skipped: [{ name: 'Chain / step 1 (repeat_escalation)', reason: expect.stringContaining('not its last') }] });
    const late = policyDraftOf(chain, [step(0, { type: 'wait', duration: 700_000 }), step(1, { type: 'notify_persons', persons_to_notify: ['UALEX'] })], people, scheduleIdOf);
    expect(late).toMatchObject({ steps: [], skipped: [{ reason: expect.stringContaining('at most 10080 minutes') }] });
    expect(policyDraftOf(chain, [step(0, { type: null })], people, scheduleIdOf)).toMatchObject({ steps: [], skipped: [{ reason: 'an empty step' }] });
  });
});
