import { describe, expect, it } from 'vitest';
import { openingCursor, type Cursor } from './cursor.js';
import { planEscalation, HOLD_RECHECK_MS, type Plan } from './engine.js';

const OPENED = '2026-03-01T12:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(OPENED) + minutes * 60_000);
const channel = (alertChannelId: number) => ({ targetType: 'ALERT_CHANNEL' as const, alertChannelId });
/** Steps at 0, 10 and 30 minutes: L = 30 + max(5, 30 - 10) = 50. */
const THREE: Plan = {
  steps: [
    { position: 0, delayMinutes: 0, targets: [channel(1)] },
    { position: 1, delayMinutes: 10, targets: [channel(2)] },
    { position: 2, delayMinutes: 30, targets: [channel(3)] },
  ],
  repeatCount: 1,
  ackTimeoutMinutes: null,
};
const ACTIVE = { state: 'ACTIVE' as const, acknowledgedAt: null };

/** Runs the engine once a minute from the opening to `until`, as the sweep would, collecting what fires. */
function run(plan: Plan, until: number, options: { ackAt?: number; resolveAt?: number; suppressed?: (minute: number) => boolean } = {}) {
  let cursor: Cursor = openingCursor(OPENED);
  let dueAt: Date | null = at(0);
  let acknowledgedAt: string | null = null;
  const fired: string[] = [];
  for (let minute = 0; minute <= until; minute++) {
    if (options.ackAt === minute) {
      acknowledgedAt = at(minute).toISOString();
      dueAt = at(minute);
    }
    if (options.resolveAt === minute) dueAt = null;
    if (!dueAt || dueAt > at(minute)) continue;
    const result = planEscalation({
      plan,
      incident: { state: 'ACTIVE', acknowledgedAt },
      cursor,
      now: at(minute),
      suppressed: options.suppressed?.(minute) ?? false,
      muted: false,
    });
    for (const due of result.fire) fired.push(`${minute}: e${due.epoch} c${due.cycle} s${due.step}${due.escalated ? ' escalated' : ''}`);
    if (result.reescalatedAt) acknowledgedAt = null;
    cursor = result.cursor;
    dueAt = result.dueAt;
  }
  return { fired, cursor, dueAt };
}

describe('escalation engine', () => {
  it('fires each step at its minute; step 0 of the opening belongs to the opening message', () => {
    expect(run({ ...THREE, repeatCount: 0 }, 200).fired).toEqual(['10: e0 c0 s1 escalated', '30: e0 c0 s2 escalated']);
  });

  it('repeats by the L formula: steps at 0, 10, 30 -> cycle 1 at 50, 60, 80, then leaves the index', () => {
    const { fired, dueAt } = run(THREE, 500);
    expect(fired).toEqual(['10: e0 c0 s1 escalated', '30: e0 c0 s2 escalated', '50: e0 c1 s0 escalated', '60: e0 c1 s1 escalated', '80: e0 c1 s2 escalated']);
    expect(dueAt).toBeNull();
  });

  it('L for one step is max(5, d): a lone step at 0 repeats every 5 minutes; at 20, every 40', () => {
    const lone = (delayMinutes: number): Plan => ({ steps: [{ position: 0, delayMinutes, targets: [channel(1)] }], repeatCount: 2, ackTimeoutMinutes: null });
    expect(run(lone(0), 100).fired).toEqual(['5: e0 c1 s0 escalated', '10: e0 c2 s0 escalated']);
    expect(run(lone(20), 200).fired).toEqual(['20: e0 c0 s0', '60: e0 c1 s0 escalated', '100: e0 c2 s0 escalated']);
  });

  it('an acknowledgement stops every pending step', () => {
    const { fired, dueAt } = run(THREE, 500, { ackAt: 15 });
    expect(fired).toEqual(['10: e0 c0 s1 escalated']);
    expect(dueAt).toBeNull();
  });

  it('an acknowledgement that times out re-escalates from step 0, counted from the timeout', () => {
    const { fired } = run({ ...THREE, repeatCount: 0, ackTimeoutMinutes: 30 }, 500, { ackAt: 15 });
    // Acknowledged at 15, timed out at 45: a new run, its step 0 at 45 (an escalation), then 55 and 75.
    expect(fired).toEqual(['10: e0 c0 s1 escalated', '45: e1 c0 s0 escalated', '55: e1 c0 s1 escalated', '75: e1 c0 s2 escalated']);
  });

  it('resolution stops everything', () => {
    const result = planEscalation({
      plan: THREE,
      incident: { state: 'RESOLVED', acknowledgedAt: null },
      cursor: openingCursor(OPENED),
      now: at(100),
      suppressed: false,
      muted: false,
    });
    expect(result).toEqual({ fire: [], cursor: openingCursor(OPENED), dueAt: null, reescalatedAt: null });
    expect(run(THREE, 500, { resolveAt: 20 }).fired).toEqual(['10: e0 c0 s1 escalated']);
  });

  it('a maintenance window with suppressAlerts holds the steps, then starts again from step 0 when it ends', () => {
    const { fired } = run({ ...THREE, repeatCount: 0 }, 200, { suppressed: (minute) => minute >= 5 && minute < 40 });
    expect(fired).toEqual(['40: e1 c0 s0', '50: e1 c0 s1 escalated', '70: e1 c0 s2 escalated']);
    const held = planEscalation({ plan: THREE, incident: ACTIVE, cursor: openingCursor(OPENED), now: at(12), suppressed: true, muted: false });
    expect([held.fire, held.cursor.held, held.dueAt]).toEqual([[], true, new Date(at(12).getTime() + HOLD_RECHECK_MS)]);
  });

  it('a sweep after a long stop (a restart) fires every step that fell due, each once, in order', () => {
    const result = planEscalation({ plan: THREE, incident: ACTIVE, cursor: openingCursor(OPENED), now: at(65), suppressed: false, muted: false });
    expect(result.fire.map((d) => `c${d.cycle} s${d.step} ${d.at.toISOString()}`)).toEqual([
      `c0 s1 ${at(10).toISOString()}`,
      `c0 s2 ${at(30).toISOString()}`,
      `c1 s0 ${at(50).toISOString()}`,
      `c1 s1 ${at(60).toISOString()}`,
    ]);
    expect(result.dueAt).toEqual(at(80));
    const again = planEscalation({ plan: THREE, incident: ACTIVE, cursor: result.cursor, now: at(65), suppressed: false, muted: false });
    expect(again.fire).toEqual([]);
  });

  it('a muted check or nothing to route takes the incident out of the index', () => {
    expect(planEscalation({ plan: THREE, incident: ACTIVE, cursor: openingCursor(OPENED), now: at(10), suppressed: false, muted: true }).dueAt).toBeNull();
    expect(planEscalation({ plan: null, incident: ACTIVE, cursor: openingCursor(OPENED), now: at(10), suppressed: false, muted: false }).dueAt).toBeNull();
  });
});
