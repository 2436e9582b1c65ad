import { describe, expect, it } from 'vitest';
import { finalShifts, gaps, gapsStartingIn, onCallAt, report, shiftsStartingIn } from './rotation.js';
import { brief, override, rotation, schedule } from '../../test/support/oncall.js';

const at = (iso: string) => new Date(iso);
const DAY1 = '2026-06-01T00:00:00.000Z'; // a Monday; UTC schedules keep the arithmetic readable

describe('layers', () => {
  it('layer 0 wins while it has someone on call; layer 1 fills the rest', () => {
    const s = schedule('UTC', [
      rotation({ id: 10, layerPosition: 1, handoffTime: '00:00', effectiveFrom: DAY1, participants: [{ userId: 7, position: 0 }] }),
      rotation({ id: 20, layerPosition: 0, handoffTime: '00:00', effectiveFrom: '2026-06-02T06:00:00.000Z', effectiveUntil: '2026-06-02T18:00:00.000Z' }),
    ]);
    expect(finalShifts(s, at(DAY1), at('2026-06-03T00:00:00.000Z'))).toEqual([
      { userId: 7, startAt: DAY1, endAt: '2026-06-02T00:00:00.000Z', layerPosition: 1, rotationId: 10, overrideId: null },
      { userId: 7, startAt: '2026-06-02T00:00:00.000Z', endAt: '2026-06-02T06:00:00.000Z', layerPosition: 1, rotationId: 10, overrideId: null },
      { userId: 1, startAt: '2026-06-02T06:00:00.000Z', endAt: '2026-06-02T18:00:00.000Z', layerPosition: 0, rotationId: 20, overrideId: null },
      { userId: 7, startAt: '2026-06-02T18:00:00.000Z', endAt: '2026-06-03T00:00:00.000Z', layerPosition: 1, rotationId: 10, overrideId: null },
    ]);
  });

  it('a rotation with no participants covers nothing, so the layer below answers', () => {
    const s = schedule('UTC', [
      rotation({ id: 1, layerPosition: 0, effectiveFrom: DAY1, participants: [] }),
      rotation({ id: 2, layerPosition: 1, effectiveFrom: DAY1, participants: [{ userId: 9, position: 0 }] }),
    ]);
    expect(onCallAt(s, at('2026-06-01T12:00:00.000Z'))).toMatchObject({ userId: 9, rotationId: 2, layerPosition: 1 });
  });

  it('on one layer, the rotation that took effect later wins (an edited layer)', () => {
    const s = schedule('UTC', [
      rotation({ id: 1, effectiveFrom: DAY1, participants: [{ userId: 1, position: 0 }] }),
      rotation({ id: 2, effectiveFrom: '2026-06-03T09:00:00.000Z', participants: [{ userId: 2, position: 0 }] }),
    ]);
    expect(onCallAt(s, at('2026-06-02T12:00:00.000Z'))?.userId).toBe(1);
    expect(onCallAt(s, at('2026-06-03T12:00:00.000Z'))?.userId).toBe(2);
  });

  it('participants take turns in position order, not in array order', () => {
    const participants = [
      { userId: 30, position: 2 },
      { userId: 10, position: 0 },
      { userId: 20, position: 1 },
    ];
    const s = schedule('UTC', [rotation({ handoffTime: '00:00', effectiveFrom: DAY1, participants })]);
    expect(finalShifts(s, at(DAY1), at('2026-06-05T00:00:00.000Z')).map((x) => x.userId)).toEqual([10, 20, 30, 10]);
  });

  it('nothing before effectiveFrom or after effectiveUntil', () => {
    const s = schedule('UTC', [rotation({ effectiveFrom: '2026-06-01T12:00:00.000Z', effectiveUntil: '2026-06-02T12:00:00.000Z' })]);
    expect(onCallAt(s, at('2026-06-01T11:59:59.999Z'))).toBeNull();
    expect(onCallAt(s, at('2026-06-02T12:00:00.000Z'))).toBeNull();
    expect(brief(finalShifts(s, at(DAY1), at('2026-06-03T00:00:00.000Z')))).toEqual([
      { userId: 1, startAt: '2026-06-01T12:00:00.000Z', endAt: '2026-06-02T09:00:00.000Z', overrideId: null },
      { userId: 2, startAt: '2026-06-02T09:00:00.000Z', endAt: '2026-06-02T12:00:00.000Z', overrideId: null },
    ]);
  });
});

describe('overrides', () => {
  const base = rotation({ handoffTime: '00:00', effectiveFrom: DAY1 }); // user 1 on 1 June, user 2 on 2 June, ...

  it('an unconditional override cuts the shift it lands in and puts its user on call', () => {
    const s = schedule('UTC', [base], [override({ id: 5, overrideUserId: 3, startAt: '2026-06-01T10:00:00.000Z', endAt: '2026-06-01T14:00:00.000Z' })]);
    expect(brief(finalShifts(s, at(DAY1), at('2026-06-02T00:00:00.000Z')))).toEqual([
      { userId: 1, startAt: DAY1, endAt: '2026-06-01T10:00:00.000Z', overrideId: null },
      { userId: 3, startAt: '2026-06-01T10:00:00.000Z', endAt: '2026-06-01T14:00:00.000Z', overrideId: 5 },
      { userId: 1, startAt: '2026-06-01T14:00:00.000Z', endAt: '2026-06-02T00:00:00.000Z', overrideId: null },
    ]);
    expect(onCallAt(s, at('2026-06-01T12:00:00.000Z'))).toEqual({
      at: '2026-06-01T12:00:00.000Z',
      userId: 3,
      layerPosition: null,
      rotationId: null,
      overrideId: 5,
      shiftStart: '2026-06-01T10:00:00.000Z',
      shiftEnd: '2026-06-01T14:00:00.000Z',
    });
    expect(onCallAt(s, at('2026-06-01T15:00:00.000Z'))).toMatchObject({ userId: 1, shiftStart: '2026-06-01T14:00:00.000Z', shiftEnd: '2026-06-02T00:00:00.000Z' });
  });

  it('an unconditional override also covers a gap, and stays one shift across a handoff', () => {
    const s = schedule('UTC', [base], [override({ id: 6, overrideUserId: 4, startAt: '2026-05-31T20:00:00.000Z', endAt: '2026-06-02T04:00:00.000Z' })]);
    expect(brief(finalShifts(s, at('2026-05-31T00:00:00.000Z'), at('2026-06-02T12:00:00.000Z')))).toEqual([
      { userId: 4, startAt: '2026-05-31T20:00:00.000Z', endAt: '2026-06-02T04:00:00.000Z', overrideId: 6 },
      { userId: 2, startAt: '2026-06-02T04:00:00.000Z', endAt: '2026-06-02T12:00:00.000Z', overrideId: null },
    ]);
  });

  it('a replacing override applies only while the replaced user is on call', () => {
    const s = schedule('UTC', [base], [override({ id: 7, overrideUserId: 9, replacedUserId: 2, startAt: '2026-06-01T12:00:00.000Z', endAt: '2026-06-02T12:00:00.000Z' })]);
    expect(brief(finalShifts(s, at(DAY1), at('2026-06-03T00:00:00.000Z')))).toEqual([
      { userId: 1, startAt: DAY1, endAt: '2026-06-02T00:00:00.000Z', overrideId: null },
      { userId: 9, startAt: '2026-06-02T00:00:00.000Z', endAt: '2026-06-02T12:00:00.000Z', overrideId: 7 },
      { userId: 2, startAt: '2026-06-02T12:00:00.000Z', endAt: '2026-06-03T00:00:00.000Z', overrideId: null },
    ]);
  });

  it('the latest-created override wins where several apply', () => {
    const s = schedule(
      'UTC',
      [base],
      [
        override({ id: 2, overrideUserId: 5, startAt: '2026-06-01T08:00:00.000Z', endAt: '2026-06-01T16:00:00.000Z', createdAt: '2026-05-20T00:00:00.000Z' }),
        override({ id: 1, overrideUserId: 6, startAt: '2026-06-01T10:00:00.000Z', endAt: '2026-06-01T12:00:00.000Z', createdAt: '2026-05-21T00:00:00.000Z' }),
      ],
    );
    expect(brief(finalShifts(s, at('2026-06-01T06:00:00.000Z'), at('2026-06-01T18:00:00.000Z')))).toEqual([
      { userId: 1, startAt: '2026-06-01T06:00:00.000Z', endAt: '2026-06-01T08:00:00.000Z', overrideId: null },
      { userId: 5, startAt: '2026-06-01T08:00:00.000Z', endAt: '2026-06-01T10:00:00.000Z', overrideId: 2 },
      { userId: 6, startAt: '2026-06-01T10:00:00.000Z', endAt: '2026-06-01T12:00:00.000Z', overrideId: 1 },
      { userId: 5, startAt: '2026-06-01T12:00:00.000Z', endAt: '2026-06-01T16:00:00.000Z', overrideId: 2 },
      { userId: 1, startAt: '2026-06-01T16:00:00.000Z', endAt: '2026-06-01T18:00:00.000Z', overrideId: null },
    ]);
  });
});

describe('gaps', () => {
  it('lists the stretches with nobody on call, and nothing when the range is covered', () => {
    const s = schedule(
      'UTC',
      [rotation({ effectiveFrom: '2026-06-01T06:00:00.000Z', effectiveUntil: '2026-06-01T18:00:00.000Z' })],
      [override({ id: 1, overrideUserId: 3, startAt: '2026-06-01T20:00:00.000Z', endAt: '2026-06-01T22:00:00.000Z' })],
    );
    expect(gaps(s, at(DAY1), at('2026-06-02T00:00:00.000Z'))).toEqual([
      { startAt: DAY1, endAt: '2026-06-01T06:00:00.000Z' },
      { startAt: '2026-06-01T18:00:00.000Z', endAt: '2026-06-01T20:00:00.000Z' },
      { startAt: '2026-06-01T22:00:00.000Z', endAt: '2026-06-02T00:00:00.000Z' },
    ]);
    expect(gaps(s, at('2026-06-01T07:00:00.000Z'), at('2026-06-01T17:00:00.000Z'))).toEqual([]);
    expect(gaps(schedule('UTC', []), at(DAY1), at('2026-06-02T00:00:00.000Z'))).toEqual([{ startAt: DAY1, endAt: '2026-06-02T00:00:00.000Z' }]);
  });
});

describe('what starts in a range (handoff and gap notices)', () => {
  it('keeps shifts and gaps that begin in [from, to), not those only clipped at from', () => {
    const s = schedule('UTC', [rotation({ effectiveFrom: '2026-06-01T06:00:00.000Z', effectiveUntil: '2026-06-02T18:00:00.000Z' })]);
    expect(brief(shiftsStartingIn(s, at('2026-06-01T09:00:00.000Z'), at('2026-06-02T10:00:00.000Z')))).toEqual([
      { userId: 2, startAt: '2026-06-01T09:00:00.000Z', endAt: '2026-06-02T09:00:00.000Z', overrideId: null },
      { userId: 1, startAt: '2026-06-02T09:00:00.000Z', endAt: '2026-06-02T10:00:00.000Z', overrideId: null },
    ]);
    expect(shiftsStartingIn(s, at('2026-06-01T09:00:00.001Z'), at('2026-06-02T09:00:00.000Z'))).toEqual([]);
    expect(gapsStartingIn(s, at('2026-06-01T00:00:00.000Z'), at('2026-06-03T00:00:00.000Z'))).toEqual([{ startAt: '2026-06-02T18:00:00.000Z', endAt: '2026-06-03T00:00:00.000Z' }]);
  });
});

describe('report (hours per user, schedule time zone; night is 22:00-07:00 local)', () => {
  it('splits a Friday-to-Saturday 09:00 shift into 15 weekday and 9 weekend hours, 9 of them at night', () => {
    const s = schedule('Europe/Berlin', [rotation({ effectiveFrom: '2026-06-05T07:00:00.000Z', participants: [{ userId: 1, position: 0 }] })]);
    expect(report(s, at('2026-06-05T07:00:00.000Z'), at('2026-06-06T07:00:00.000Z'))).toEqual([
      { userId: 1, shiftCount: 1, totalHours: 24, weekdayHours: 15, weekendHours: 9, nightHours: 9 },
    ]);
  });

  it('counts real hours: the weekend night New York springs forward is 8 hours, the shift 23', () => {
    const s = schedule('America/New_York', [rotation({ effectiveFrom: '2026-03-07T14:00:00.000Z', participants: [{ userId: 1, position: 0 }] })]);
    expect(report(s, at('2026-03-07T14:00:00.000Z'), at('2026-03-08T13:00:00.000Z'))).toEqual([
      { userId: 1, shiftCount: 1, totalHours: 23, weekdayHours: 0, weekendHours: 23, nightHours: 8 },
    ]);
  });

  it('reports each user of the final schedule, overrides included, ordered by user id', () => {
    const s = schedule(
      'UTC',
      [rotation({ handoffTime: '00:00', effectiveFrom: DAY1 })],
      [override({ id: 1, overrideUserId: 3, startAt: '2026-06-01T23:00:00.000Z', endAt: '2026-06-02T01:00:00.000Z' })],
    );
    expect(report(s, at(DAY1), at('2026-06-03T00:00:00.000Z'))).toEqual([
      { userId: 1, shiftCount: 1, totalHours: 23, weekdayHours: 23, weekendHours: 0, nightHours: 8 },
      { userId: 2, shiftCount: 1, totalHours: 23, weekdayHours: 23, weekendHours: 0, nightHours: 8 },
      { userId: 3, shiftCount: 1, totalHours: 2, weekdayHours: 2, weekendHours: 0, nightHours: 2 },
    ]);
  });
});
