import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PolicyCreate } from '../escalation/schema.js';
import { OverrideCreate, ScheduleCreate } from '../oncall/schema.js';
import { policyDraftOf } from './grafanaOncallChains.js';
import { OncallExport } from './grafanaOncallPayload.js';
import { scheduleDraftOf } from './grafanaOncallSchedules.js';
import type { People } from './grafanaOncallShifts.js';

/**
 * Whatever an accepted OnCall file holds, the mapping answers a draft or a reason, never an
 * exception (a 500), and every draft it answers is one Vigil's own schemas accept.
 */

const users = ['UA', 'UB', 'UC', 'UX'];
const people: People = { userIdOf: (id) => ({ UA: 1, UB: 2, UC: 3 })[id], label: (id) => id };
const now = new Date('2026-03-01T12:00:00Z');
const localTime = fc
  .record({
    y: fc.integer({ min: 1970, max: 2100 }),
    mo: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 28 }),
    h: fc.integer({ min: 0, max: 23 }),
    mi: fc.constantFrom(0, 30),
  })
  .map(({ y, mo, d, h, mi }) => `${y}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}T${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}:00`);
const group = fc.array(fc.constantFrom(...users), { minLength: 0, maxLength: 2 });
/** Mostly what a rotation needs (null, one member per turn), sometimes anything. */
const mostly = <T, U>(usual: fc.Arbitrary<T>, other: fc.Arbitrary<U>) => fc.oneof({ arbitrary: usual, weight: 4 }, { arbitrary: other, weight: 1 });
const member = fc.constantFrom('UA', 'UB', 'UC').map((u) => [u]);
const HOURS: Record<string, number> = { hourly: 1, daily: 24, weekly: 168, monthly: 744 };
const id = fc.stringMatching(/^[A-Z0-9]{1,4}$/);
const shift = fc
  .record({
    id,
    name: fc.string({ maxLength: 8 }),
    type: mostly(fc.constantFrom('rolling_users', 'override'), fc.constantFrom('recurrent_event', 'single_event', 'other')),
    time_zone: mostly(fc.constant(null), fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Nowhere/Else')),
    level: fc.integer({ min: -3, max: 3 }),
    start: localTime,
    rotation_start: fc.option(localTime),
    // Mostly a whole turn (a rotation), sometimes any length at all.
    duration: fc.option(fc.integer({ min: 0, max: 315_360_000 }), { freq: 3 }),
    frequency: mostly(fc.constantFrom('hourly', 'daily', 'weekly'), fc.constantFrom(null, 'monthly')),
    interval: fc.option(fc.integer({ min: 1, max: 400 })),
    until: mostly(fc.constant(null), localTime),
    by_day: mostly(fc.constant(null), fc.subarray(['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'])),
    users: mostly(member, fc.option(group)),
    rolling_users: mostly(fc.array(member, { minLength: 1, maxLength: 4 }), fc.option(fc.array(group, { maxLength: 4 }))),
    start_rotation_from_user_index: fc.option(fc.integer({ min: 0, max: 1_000_000 })),
  })
  .map(({ duration, ...rest }) => ({ ...rest, duration: duration ?? (rest.interval ?? 1) * (HOURS[rest.frequency ?? 'daily'] ?? 24) * 3600 }));
const step = fc.record({
  id,
  escalation_chain_id: fc.constant('F1'),
  position: fc.integer({ min: 0, max: 30 }),
  type: fc.constantFrom(null, 'wait', 'notify_persons', 'notify_on_call_from_schedule', 'repeat_escalation', 'resolve'),
  duration: fc.option(fc.integer({ min: 0, max: 315_360_000 })),
  persons_to_notify: fc.option(group),
  notify_on_call_from_schedule: fc.option(fc.constantFrom('S1', 'S2')),
});

describe('the OnCall mapping on any accepted file', () => {
  it('answers drafts Vigil accepts, or reasons', () => {
    const seen = { rotations: 0, overrides: 0, steps: 0 };
    fc.assert(
      fc.property(
        fc.uniqueArray(shift, { maxLength: 6, selector: (s) => s.id }),
        fc.uniqueArray(step, { maxLength: 8, selector: (s) => s.id }),
        fc.constantFrom('UTC', 'Europe/Berlin', 'Asia/Kolkata'),
        (shifts, steps, zone) => {
          const parsed = OncallExport.safeParse({ on_call_shifts: shifts, escalation_policies: steps });
          if (!parsed.success) return;
          const draft = scheduleDraftOf({ id: 'S1', name: 'S', type: 'web', time_zone: zone }, parsed.data.on_call_shifts, people, now);
          if ('reason' in draft) return;
          seen.rotations += draft.rotations.length;
          seen.overrides += draft.overrides.length;
          expect(ScheduleCreate.safeParse({ workspaceId: 1, name: draft.name, timezone: draft.timezone, rotations: draft.rotations }).error).toBeUndefined();
          for (const o of draft.overrides)
            expect(OverrideCreate.safeParse({ scheduleId: 1, overrideUserId: o.overrideUserId, startAt: o.startAt, endAt: o.endAt }).error).toBeUndefined();
          const policy = policyDraftOf({ id: 'F1', name: 'F' }, parsed.data.escalation_policies, people, (id) => (id === 'S1' ? 7 : undefined));
          seen.steps += policy.steps.length;
          if (policy.steps.length > 0)
            expect(PolicyCreate.safeParse({ workspaceId: 1, name: policy.name, priority: 0, repeatCount: policy.repeatCount, steps: policy.steps }).error).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
    // The generator reaches every kind of draft, so the property is not only about refusals.
    expect(seen.rotations * seen.overrides * seen.steps).toBeGreaterThan(0);
  });
});
