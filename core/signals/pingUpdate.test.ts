import { describe, expect, it } from 'vitest';
import { runAttribute } from '../checks/runs.js';
import type { PingHint } from './hints.js';
import { PING_RATE_LIMIT } from './limits.js';
import { planPingUpdate, type Judged } from './pingUpdate.js';

/** The ping's update, planned without a table: what it assumes, guards, writes and owes. */
const NOW = new Date('2026-03-01T12:00:00.000Z');
const WINDOW = Math.floor(NOW.getTime() / (PING_RATE_LIMIT.windowSeconds * 1000)) * PING_RATE_LIMIT.windowSeconds * 1000;
const RID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const hint = (extra: Partial<PingHint> = {}): PingHint => ({
  checkId: 7,
  workspaceId: 3,
  projectId: 5,
  checkMode: 'INBOUND',
  status: 'OK',
  intervalSeconds: 300,
  graceSeconds: 60,
  jobRules: undefined,
  windowStart: WINDOW,
  ...extra,
});
const guards = (plan: ReturnType<typeof planPingUpdate>): string[] => (plan.request.ConditionExpression ?? '').split(' AND ');
const owedBodies = (plan: ReturnType<typeof planPingUpdate>): unknown[] => (plan.owed?.entries ?? []).map((entry) => JSON.parse(entry.body) as unknown);

describe('planPingUpdate', () => {
  it('a steady success on a remembered check: pins every guess, counts in the window, writes the timing and asks back only the old values', () => {
    const known = hint();
    const plan = planPingUpdate('vigil', { token: 'tok', kind: 'success', now: NOW }, WINDOW, known, undefined);
    expect(guards(plan)).toEqual([
      '#checkMode = :mode',
      '#status = :expected',
      '#intervalSeconds = :interval',
      '#graceSeconds = :grace',
      'NOT #jobRules >= :never',
      'NOT #deletedAt >= :never',
      'NOT #dedup > :cutoff',
      '#pingWindowStart = :ws',
      '#pingWindowCount < :limit',
    ]);
    expect(plan.request.ExpressionAttributeValues).toMatchObject({
      ':expected': 'OK',
      ':interval': 300,
      ':grace': 60,
      ':cutoff': '2026-03-01T11:59:59.000Z',
      ':ws': WINDOW,
      ':limit': PING_RATE_LIMIT.limit,
    });
    expect(plan.request.ExpressionAttributeNames).toMatchObject({ '#dedup': 'lastSuccessAt' });
    expect(plan.request.ExpressionAttributeValues).toMatchObject({ ':lastSuccessAt': NOW.toISOString(), ':pingWindowCount_add': 1 });
    expect(plan.request.UpdateExpression).toContain('ADD #pingWindowCount :pingWindowCount_add');
    expect(plan).toMatchObject({ status: 'OK', owed: undefined, known, request: { ReturnValues: 'UPDATED_OLD', Key: expect.any(Object) } });
  });

  it('a success that moves a LATE check owes its status change in the same update, held to the remembered project', () => {
    const plan = planPingUpdate('vigil', { token: 'tok', kind: 'success', now: NOW }, WINDOW, hint({ status: 'LATE' }), undefined);
    expect(plan.status).toBe('OK');
    expect(owedBodies(plan)).toEqual([expect.objectContaining({ type: 'check.status_changed', checkId: 7, workspaceId: 3, projectId: 5, from: 'LATE', to: 'OK' })]);
    expect(guards(plan)).toContain('#projectId = :project');
    expect(plan.request.UpdateExpression).toContain('#outbox = list_append(if_not_exists(#outbox, :outbox_none), :outbox_append)');
    const noProject = planPingUpdate('vigil', { token: 'tok', kind: 'success', now: NOW }, WINDOW, hint({ status: 'LATE', projectId: undefined }), undefined);
    expect(guards(noProject)).toContain('NOT #projectId >= :noProject');
  });

  it('a blind start with a run id assumes nothing but existence, writes the run its own attribute, opens a new window and asks back the whole item', () => {
    const plan = planPingUpdate('vigil', { token: 'tok', kind: 'start', now: NOW, rid: RID }, WINDOW, undefined, undefined);
    expect(guards(plan)).toEqual(['attribute_exists(#pk)', 'NOT #deletedAt >= :never', 'NOT #dedup > :cutoff', 'NOT #pingWindowStart = :ws']);
    expect(plan.request.ExpressionAttributeNames).toMatchObject({ '#run': runAttribute(RID), '#dedup': 'startedAt' });
    expect(plan.request.UpdateExpression).toContain('#run = :run_value');
    expect(plan.request.UpdateExpression).not.toContain('#startedAt =');
    expect(plan.request.ExpressionAttributeValues).toMatchObject({ ':run_value': NOW.toISOString(), ':pingWindowStart': WINDOW, ':pingWindowCount': 1 });
    expect(plan).toMatchObject({ status: undefined, owed: undefined, known: undefined, request: { ReturnValues: 'ALL_OLD' } });
  });

  it('a log line is never a duplicate: no dedup guard', () => {
    const plan = planPingUpdate('vigil', { token: 'tok', kind: 'log', now: NOW }, WINDOW, hint(), undefined);
    expect(guards(plan).some((guard) => guard.includes('#dedup'))).toBe(false);
    expect(plan.request.ExpressionAttributeNames).not.toHaveProperty('#dedup');
    expect(plan.request.ExpressionAttributeValues).not.toHaveProperty(':cutoff');
  });

  it('a judged success that starts a too-frequent episode pins what the judgement read and owes the alert', () => {
    const judged: Judged = {
      state: { runs: {}, lastSuccessAt: '2026-03-01T11:59:30.000Z', startedAt: undefined },
      verdict: { kind: 'success', tooFrequent: true, episodeStarts: true, episodeEnds: false },
    };
    const plan = planPingUpdate('vigil', { token: 'tok', kind: 'success', now: NOW }, WINDOW, hint({ jobRules: '{"minIntervalSeconds":60}' }), judged);
    expect(guards(plan)).toEqual(expect.arrayContaining(['NOT #startedAt >= :never', '#lastSuccessAt = :lastSuccessAt_was', '#jobRules = :jobRules']));
    expect(plan.request.ExpressionAttributeValues).toMatchObject({ ':lastSuccessAt_was': '2026-03-01T11:59:30.000Z', ':tooFrequentSince': NOW.toISOString() });
    expect(owedBodies(plan)).toEqual([expect.objectContaining({ type: 'check.too_frequent', checkId: 7, sinceSeconds: 30, at: NOW.toISOString() })]);
    // A judgement needs the whole item back.
    expect(plan).toMatchObject({ known: undefined, request: { ReturnValues: 'ALL_OLD' } });
  });

  it('a paused check is only held to its pause: the ping writes no status', () => {
    const plan = planPingUpdate('vigil', { token: 'tok', kind: 'success', now: NOW }, WINDOW, hint({ status: 'PAUSED' }), undefined);
    expect(guards(plan).slice(0, 2)).toEqual(['#checkMode = :mode', '#status = :paused']);
    expect(plan.status).toBeUndefined();
    expect(plan.request.ReturnValues).toBe('ALL_OLD');
  });
});
