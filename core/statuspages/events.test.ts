import { describe, expect, it } from 'vitest';
import { diffSnapshots, goneAnnouncementIds, owedForChanges, statusPageChannel } from './events.js';
import type { PageSnapshot, SnapshotAnnouncement } from './store/snapshotShape.js';

const now = new Date('2026-03-01T12:00:00.000Z');
const announcement = (id: number, extra: Partial<SnapshotAnnouncement> = {}): SnapshotAnnouncement => ({
  id,
  publicId: `pub${id}`,
  title: `Title ${id}`,
  status: 'INVESTIGATING',
  impact: 'MINOR',
  componentIds: [1],
  scheduledFor: null,
  scheduledUntil: null,
  resolvedAt: null,
  createdAt: now.toISOString(),
  updatedAt: now.toISOString(),
  updates: [],
  ...extra,
});
const snapshot = (statuses: [number, string][], announcements: SnapshotAnnouncement[] = []): PageSnapshot =>
  ({
    page: { id: 7, workspaceId: 3, name: 'Acme', slug: 'acme' },
    components: statuses.map(([id]) => ({ id, name: `C${id}` })),
    announcements,
    statuses: { overall: 'OPERATIONAL', components: statuses.map(([componentId, status]) => ({ componentId, status })) },
  }) as unknown as PageSnapshot;

describe('diffSnapshots', () => {
  it('says nothing for a first snapshot, or when nothing moved', () => {
    expect(diffSnapshots(null, snapshot([[1, 'MAJOR_OUTAGE']], [announcement(1)]), [], now)).toEqual([]);
    const same = snapshot([[1, 'OPERATIONAL']], [announcement(1)]);
    expect(diffSnapshots(same, snapshot([[1, 'OPERATIONAL']], [announcement(1)]), [], now)).toEqual([]);
  });

  it('names component moves, new, changed and resolved announcements; new components are not a change', () => {
    const before = snapshot(
      [
        [1, 'OPERATIONAL'],
        [2, 'OPERATIONAL'],
      ],
      [announcement(10), announcement(11)],
    );
    const after = snapshot(
      [
        [1, 'MAJOR_OUTAGE'],
        [2, 'OPERATIONAL'],
        [3, 'MAJOR_OUTAGE'],
      ],
      [announcement(10, { updatedAt: '2026-03-01T12:05:00.000Z' }), announcement(12, { scheduledFor: '2026-03-02T00:00:00.000Z', scheduledUntil: '2026-03-02T01:00:00.000Z' })],
    );
    expect(goneAnnouncementIds(before, after)).toEqual([11]);
    const changes = diffSnapshots(before, after, [announcement(11, { status: 'RESOLVED' })], now);
    expect(changes.map((c) => [c.event, c.notice, c.componentIds])).toEqual([
      ['component.status_changed', 'component.status_changed', [1]],
      ['announcement.updated', 'announcement.updated', [1]],
      ['announcement.created', 'maintenance.scheduled', [1]],
      ['announcement.updated', 'announcement.resolved', [1]],
    ]);
    expect(changes[0]?.data).toEqual({ componentId: 1, status: 'MAJOR_OUTAGE', previous: 'OPERATIONAL' });
    expect(changes[0]?.summary).toBe('C1 is now a major outage (was operational)');
    expect(changes[3]?.data).toMatchObject({ id: 'pub11', status: 'RESOLVED' });
  });

  it('owes each change as a stream event on the page channel and one subscriber notify keyed by revision', () => {
    const changes = diffSnapshots(snapshot([[1, 'OPERATIONAL']]), snapshot([[1, 'DEGRADED_PERFORMANCE']]), [], now);
    const owed = owedForChanges({ id: 7, workspaceId: 3, name: 'Acme', slug: 'acme' }, 42, changes, now);
    expect(owed).toEqual([
      {
        queue: 'broadcast',
        body: { channel: statusPageChannel(7), type: 'component.status_changed', data: { componentId: 1, status: 'DEGRADED_PERFORMANCE', previous: 'OPERATIONAL' } },
      },
      { queue: 'alerts', body: expect.objectContaining({ type: 'statuspage.notify', statusPageId: 7, workspaceId: 3, eventKey: '7:42:0', componentIds: [1] }) },
    ]);
  });
});
