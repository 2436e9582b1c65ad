import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHECK_STATUSES } from '../store/entities/check.js';
import { ANNOUNCEMENT_IMPACTS, ANNOUNCEMENT_STATUSES } from './announcementSchema.js';
import {
  COMPONENT_STATUSES,
  STATUS_RANK,
  combineStatus,
  computePageStatus,
  diffSnapshots,
  type AnnouncementInput,
  type CheckSnapshot,
  type ComponentTargetRef,
  type PageStatusSnapshot,
  type StatusInputs,
} from './componentStatus.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const iso = (seconds: number): string => new Date(NOW.getTime() + seconds * 1000).toISOString();

const projectId = fc.integer({ min: 1, max: 3 });
const check: fc.Arbitrary<CheckSnapshot> = fc.record({
  checkId: fc.integer({ min: 1, max: 8 }),
  projectId: fc.option(projectId, { nil: null }),
  status: fc.constantFrom(...CHECK_STATUSES),
  failingRegions: fc.integer({ min: 0, max: 3 }),
  latencyWarningActive: fc.boolean(),
});
const target = fc.oneof(
  fc.integer({ min: 1, max: 9 }).map((id) => ({ checkId: id, projectId: null, dependencyId: null })),
  fc.integer({ min: 1, max: 4 }).map((id) => ({ checkId: null, projectId: id, dependencyId: null })),
  fc.integer({ min: 1, max: 3 }).map((id) => ({ checkId: null, projectId: null, dependencyId: id })),
);
const components: fc.Arbitrary<ComponentTargetRef[]> = fc.array(target, { maxLength: 8 }).map((targets) => targets.map((t, i) => ({ id: i + 1, ...t })));
const offset = fc.integer({ min: -7200, max: 7200 });
const announcement: fc.Arbitrary<AnnouncementInput> = fc
  .record({
    status: fc.constantFrom(...ANNOUNCEMENT_STATUSES),
    impact: fc.option(fc.constantFrom(...ANNOUNCEMENT_IMPACTS), { nil: null }),
    componentIds: fc.uniqueArray(fc.integer({ min: 1, max: 8 }), { maxLength: 4 }),
    schedule: fc.option(fc.tuple(offset, fc.integer({ min: 1, max: 7200 })), { nil: null }),
  })
  .map(({ schedule, ...rest }) => ({ ...rest, scheduledFor: schedule ? iso(schedule[0]) : null, scheduledUntil: schedule ? iso(schedule[0] + schedule[1]) : null }));

const inputs: fc.Arbitrary<StatusInputs> = fc.record({
  components,
  checks: fc.uniqueArray(check, { selector: (c) => c.checkId, maxLength: 8 }),
  dependenciesDown: fc.uniqueArray(fc.integer({ min: 1, max: 3 }), { maxLength: 3 }),
  maintenance: fc.array(fc.record({ projectId, startsAt: offset.map(iso), endsAt: fc.option(offset.map(iso), { nil: null }) }), { maxLength: 3 }),
  announcements: fc.array(announcement, { maxLength: 4 }),
});

const rank = STATUS_RANK;
const statusOf = (snapshot: PageStatusSnapshot, id: number) => snapshot.components.find((c) => c.componentId === id)!.status;

describe('computePageStatus (properties)', () => {
  it('gives the page the worst status of its components (OPERATIONAL when it has none)', () => {
    fc.assert(
      fc.property(inputs, (given) => {
        const { overall, components: entries } = computePageStatus(given, NOW);
        expect(entries.map((e) => e.componentId)).toEqual(given.components.map((c) => c.id));
        const top = Math.max(0, ...entries.map((e) => rank[e.status]));
        expect(rank[overall]).toBe(top);
        expect(entries.every((e) => rank[e.status] <= rank[overall])).toBe(true);
      }),
    );
  });

  it('shows maintenance, never an outage, unless an announcement in effect declares an impact', () => {
    fc.assert(
      fc.property(inputs, projectId, (given, project) => {
        const withWindow = { ...given, maintenance: [...given.maintenance, { projectId: project, startsAt: iso(-60), endsAt: iso(60) }] };
        const snapshot = computePageStatus(withWindow, NOW);
        const withoutAnnouncements = computePageStatus({ ...withWindow, announcements: [] }, NOW);
        for (const component of given.components) {
          const checkProject = component.checkId === null ? null : (given.checks.find((c) => c.checkId === component.checkId)?.projectId ?? null);
          if (component.projectId !== project && checkProject !== project) continue;
          expect(statusOf(withoutAnnouncements, component.id)).toBe('UNDER_MAINTENANCE');
          const status = statusOf(snapshot, component.id);
          if (status !== 'UNDER_MAINTENANCE') {
            const declared = given.announcements.some((a) => a.componentIds.includes(component.id) && a.impact !== null && a.impact !== 'NONE');
            expect(declared).toBe(true);
          }
        }
      }),
    );
  });

  it('lets an announcement raise a component, never lower it', () => {
    fc.assert(
      fc.property(inputs, announcement, (given, extra) => {
        const before = computePageStatus(given, NOW);
        const after = computePageStatus({ ...given, announcements: [...given.announcements, extra] }, NOW);
        for (const component of given.components) {
          const was = statusOf(before, component.id);
          const now = statusOf(after, component.id);
          // Maintenance an extra scheduled announcement brings may replace an outage of the
          // target; that is the maintenance rule, so compare announcements that are not scheduled.
          if (extra.scheduledFor === null) expect(rank[now]).toBeGreaterThanOrEqual(rank[was]);
          if (!extra.componentIds.includes(component.id)) expect(now).toBe(was);
        }
        expect(rank[after.overall]).toBeGreaterThanOrEqual(extra.scheduledFor === null ? rank[before.overall] : 0);
      }),
    );
  });

  it('ignores resolved announcements and scheduled ones before their window', () => {
    fc.assert(
      fc.property(inputs, announcement, (given, extra) => {
        const outside = { ...extra, scheduledFor: iso(600), scheduledUntil: iso(1200) };
        const after = { ...extra, impact: null, scheduledFor: iso(-1200), scheduledUntil: iso(-600) };
        const resolved = { ...extra, status: 'RESOLVED' as const };
        const base = computePageStatus(given, NOW);
        expect(computePageStatus({ ...given, announcements: [...given.announcements, outside] }, NOW)).toEqual(base);
        expect(computePageStatus({ ...given, announcements: [...given.announcements, resolved] }, NOW)).toEqual(base);
        expect(computePageStatus({ ...given, announcements: [...given.announcements, after] }, NOW)).toEqual(base);
      }),
    );
  });

  it('does not depend on the order of checks, windows or announcements', () => {
    fc.assert(
      fc.property(inputs, (given) => {
        const reversed = { ...given, checks: [...given.checks].reverse(), maintenance: [...given.maintenance].reverse(), announcements: [...given.announcements].reverse() };
        expect(computePageStatus(reversed, NOW)).toEqual(computePageStatus(given, NOW));
      }),
    );
  });

  it('combines by the design rule: maintenance replaces the target, the announcement only raises', () => {
    const status = fc.constantFrom(...COMPONENT_STATUSES.filter((s) => s !== 'UNDER_MAINTENANCE'));
    fc.assert(
      fc.property(status, fc.boolean(), status, (targetStatus, maintenance, announced) => {
        const result = combineStatus(targetStatus, maintenance, announced);
        expect(rank[result]).toBeGreaterThanOrEqual(rank[announced]);
        if (maintenance) expect(result).toBe(announced === 'OPERATIONAL' ? 'UNDER_MAINTENANCE' : announced);
        else expect(rank[result]).toBe(Math.max(rank[targetStatus], rank[announced]));
      }),
    );
  });
});

describe('diffSnapshots (properties)', () => {
  it('is empty between a snapshot and itself, and for the first snapshot', () => {
    fc.assert(
      fc.property(inputs, (given) => {
        const snapshot = computePageStatus(given, NOW);
        expect(diffSnapshots(snapshot, snapshot, NOW)).toEqual([]);
        expect(diffSnapshots(null, snapshot, NOW)).toEqual([]);
      }),
    );
  });

  it('emits exactly one event per changed component, from its old to its new status, and none when replayed', () => {
    fc.assert(
      fc.property(inputs, inputs, (a, b) => {
        const before = computePageStatus(a, NOW);
        const after = computePageStatus({ ...b, components: a.components }, NOW);
        const events = diffSnapshots(before, after, NOW);
        const changed = a.components.filter((c) => statusOf(before, c.id) !== statusOf(after, c.id));
        expect(events.map((e) => e.componentId)).toEqual(changed.map((c) => c.id));
        for (const event of events) {
          expect(event.previous).toBe(statusOf(before, event.componentId));
          expect(event.status).toBe(statusOf(after, event.componentId));
        }
        expect(new Set(events.map((e) => e.key)).size).toBe(events.length);
        expect(diffSnapshots(after, after, NOW)).toEqual([]);
      }),
    );
  });
});

describe('computePageStatus (the design table)', () => {
  const c = (partial: Partial<CheckSnapshot> & Pick<CheckSnapshot, 'checkId' | 'status'>): CheckSnapshot => ({
    projectId: 1,
    failingRegions: 0,
    latencyWarningActive: false,
    ...partial,
  });
  const page = (checks: CheckSnapshot[], extra: Partial<StatusInputs> = {}) =>
    computePageStatus(
      { components: [{ id: 1, checkId: null, projectId: 1, dependencyId: null }], checks, dependenciesDown: [], maintenance: [], announcements: [], ...extra },
      NOW,
    );

  it('maps checks and projects', () => {
    expect(page([c({ checkId: 1, status: 'DOWN' }), c({ checkId: 2, status: 'DOWN' }), c({ checkId: 3, status: 'PAUSED' })]).overall).toBe('MAJOR_OUTAGE');
    expect(page([c({ checkId: 1, status: 'DOWN' }), c({ checkId: 2, status: 'OK' })]).overall).toBe('PARTIAL_OUTAGE');
    expect(page([c({ checkId: 1, status: 'LATE' }), c({ checkId: 2, status: 'OK' })]).overall).toBe('DEGRADED_PERFORMANCE');
    expect(page([c({ checkId: 1, status: 'OK', failingRegions: 1 })]).overall).toBe('DEGRADED_PERFORMANCE');
    expect(page([c({ checkId: 1, status: 'OK', latencyWarningActive: true })]).overall).toBe('DEGRADED_PERFORMANCE');
    expect(page([c({ checkId: 1, status: 'NEW' }), c({ checkId: 2, status: 'RESUMED' })]).overall).toBe('OPERATIONAL');
    expect(page([]).overall).toBe('OPERATIONAL');
  });

  it('maps a dependency with an active DEPENDENCY_DOWN incident to MAJOR_OUTAGE', () => {
    const snapshot = computePageStatus(
      {
        components: [
          { id: 7, checkId: null, projectId: null, dependencyId: 3 },
          { id: 8, checkId: null, projectId: null, dependencyId: 4 },
        ],
        checks: [],
        dependenciesDown: [3],
        maintenance: [],
        announcements: [],
      },
      NOW,
    );
    expect(snapshot.components).toEqual([
      { componentId: 7, status: 'MAJOR_OUTAGE' },
      { componentId: 8, status: 'OPERATIONAL' },
    ]);
  });

  it('puts scheduled maintenance in progress over the target, and a CRITICAL announcement over maintenance', () => {
    const down = [c({ checkId: 1, status: 'DOWN' })];
    const maintenance: AnnouncementInput = { status: 'IDENTIFIED', impact: null, componentIds: [1], scheduledFor: iso(-60), scheduledUntil: iso(60) };
    expect(page(down, { announcements: [maintenance] }).overall).toBe('UNDER_MAINTENANCE');
    expect(page(down, { announcements: [{ ...maintenance, scheduledFor: iso(60), scheduledUntil: iso(120) }] }).overall).toBe('MAJOR_OUTAGE');
    // Reopened after its window with an impact: an ordinary announcement again, no maintenance.
    expect(page([], { announcements: [{ ...maintenance, impact: 'MAJOR', scheduledFor: iso(-120), scheduledUntil: iso(-60) }] }).overall).toBe('PARTIAL_OUTAGE');
    const critical: AnnouncementInput = { status: 'INVESTIGATING', impact: 'CRITICAL', componentIds: [1], scheduledFor: null, scheduledUntil: null };
    expect(page(down, { announcements: [maintenance, critical] }).overall).toBe('MAJOR_OUTAGE');
    expect(page([], { announcements: [{ ...critical, impact: 'MINOR' }] }).overall).toBe('DEGRADED_PERFORMANCE');
    expect(page(down, { maintenance: [{ projectId: 1, startsAt: iso(-60), endsAt: null }] }).overall).toBe('UNDER_MAINTENANCE');
    expect(page(down, { maintenance: [{ projectId: 1, startsAt: iso(-60), endsAt: iso(0) }] }).overall).toBe('MAJOR_OUTAGE');
  });
});
