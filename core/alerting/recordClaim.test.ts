import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { listIncidentEvents } from '../incidents/repository.js';
import { CLAIM_LEASE_MS } from './deliveryClaim.js';
import { timelineRecordClaim } from './recordClaim.js';

/**
 * An incident alert's ALERT_SENT entry is its delivery's claim: one worker sends at a time, the
 * entry is on the timeline only once confirmed after the send, a failed send leaves nothing, a
 * recorded send is never repeated, and a claim left by a crashed worker is taken over once its
 * lease has lapsed (at once under a runtime that owns its store, as with the lock claims).
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

const at = (ms: number) => new Date(Date.parse('2026-03-01T12:00:00.000Z') + ms);
let next = 900_000;
const incident = () => ({ incidentId: ++next, workspaceId: 1, state: 'ACTIVE' as const, severity: 'P1' as const });
const timelineOf = async (incidentId: number) => (await listIncidentEvents(t.deps, incidentId)).map((e) => `${e.type} ${e.message}`);

describe('an ALERT_SENT entry as its delivery claim', () => {
  it('holds another worker off, is on the timeline only once confirmed, and is then recorded', async () => {
    const about = incident();
    const claim = timelineRecordClaim(t.deps, about, 'alert#1#opened#1');
    const first = await claim.take(at(0), 'sent to one');
    expect(first.outcome).toBe('taken');
    expect((await claim.take(at(10_000), 'sent to one')).outcome).toBe('held');
    expect(await timelineOf(about.incidentId)).toEqual([]);
    if (first.outcome === 'taken') await first.confirm();
    expect(await timelineOf(about.incidentId)).toEqual(['ALERT_SENT sent to one']);
    expect((await claim.take(at(CLAIM_LEASE_MS * 2), 'sent to one')).outcome).toBe('sent');
  });

  it('leaves nothing after a failed send, so a retry claims it again', async () => {
    const about = incident();
    const claim = timelineRecordClaim(t.deps, about, 'alert#2#opened#1', 'step 0: sent');
    const first = await claim.take(at(0), 'ignored');
    if (first.outcome === 'taken') await first.release();
    expect(await timelineOf(about.incidentId)).toEqual([]);
    const again = await claim.take(at(1_000), 'ignored');
    expect(again.outcome).toBe('taken');
    if (again.outcome === 'taken') await again.confirm();
    expect(await timelineOf(about.incidentId)).toEqual(['ALERT_SENT step 0: sent']);
  });

  it('is taken over after its lease, or at once when taken before a runtime that owns the store started', async () => {
    const lapsed = incident();
    const crashed = await timelineRecordClaim(t.deps, lapsed, 'k').take(at(0), 'x');
    expect(crashed.outcome).toBe('taken');
    const later = await timelineRecordClaim(t.deps, lapsed, 'k').take(at(CLAIM_LEASE_MS + 1), 'x');
    expect(later.outcome).toBe('taken');
    // The crashed worker's late confirm and release no longer touch the claim taken over.
    if (crashed.outcome === 'taken') {
      await crashed.release();
      await crashed.confirm();
    }
    expect(await timelineOf(lapsed.incidentId)).toEqual([]);
    if (later.outcome === 'taken') await later.confirm();
    expect(await timelineOf(lapsed.incidentId)).toEqual(['ALERT_SENT x']);

    const killed = incident();
    expect((await timelineRecordClaim(t.deps, killed, 'k').take(at(0), 'y')).outcome).toBe('taken');
    const restarted = { ...t.deps, storeOwnedSince: at(5_000) };
    expect((await timelineRecordClaim(restarted, killed, 'k').take(at(10_000), 'y')).outcome).toBe('taken');
    // Its own claims hold for its other workers.
    expect((await timelineRecordClaim(restarted, killed, 'k').take(at(11_000), 'y')).outcome).toBe('held');
  });
});
