import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/harness.js';
import { HttpError } from '../../http/errors.js';
import type { Severity } from '../../incidents/transition.js';
import type { IntakeOutcome } from '../intakeAlert.js';
import { pagerDutyParser } from './pagerduty.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

function parse(body: unknown, severityMap?: Record<string, Severity>): Promise<IntakeOutcome> {
  return pagerDutyParser(
    { body, raw: JSON.stringify(body), headers: new Headers(), integration: { integrationId: 1, workspaceId: 1, kind: 'PAGERDUTY_EVENTS', severityMap } },
    t.deps,
  );
}

async function rejection(body: unknown): Promise<HttpError> {
  const error = await parse(body).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(error)}`);
  return error;
}

// A Sentry-style trigger, as https://developer.pagerduty.com/docs/events-api-v2/trigger-events/ shows it.
const trigger = {
  routing_key: 'R0UT1NGKEY0123456789ABCDEFGHIJKL',
  event_action: 'trigger',
  dedup_key: 'sentry-issue-4711',
  payload: {
    summary: 'DiskFull: /var is 98% full on db-1',
    source: 'db-1.prod',
    severity: 'critical',
    timestamp: '2026-03-01T11:59:30.000+01:00',
    component: 'postgres',
    group: 'prod-datapipe',
    class: 'disk',
    custom_details: { free_space: '1%', ping_time: 1500, nested: { ignored: true } },
  },
  client: 'Sentry',
  client_url: 'https://sentry.example/issues/4711',
};

describe('PagerDuty Events API v2 events', () => {
  it('maps a trigger to an alert: summary, source, severity, timestamp, details', async () => {
    const outcome = await parse(trigger);
    expect(outcome).toEqual({
      kind: 'alerts',
      alerts: [
        {
          dedupKey: 'sentry-issue-4711',
          action: 'trigger',
          title: 'DiskFull: /var is 98% full on db-1',
          description: JSON.stringify(trigger.payload.custom_details, null, 2),
          severity: 'P1',
          source: 'db-1.prod',
          labels: { component: 'postgres', group: 'prod-datapipe', class: 'disk', free_space: '1%', ping_time: '1500' },
          occurredAt: '2026-03-01T10:59:30.000Z',
        },
      ],
    });
  });

  it("maps critical, error, warning and info to P1-P4, and follows an integration's severityMap", async () => {
    const mapped: Record<string, unknown> = {};
    for (const severity of ['critical', 'error', 'warning', 'info']) {
      const outcome = await parse({ ...trigger, payload: { ...trigger.payload, severity } });
      mapped[severity] = outcome.kind === 'alerts' ? outcome.alerts[0]?.severity : outcome.kind;
    }
    expect(mapped).toEqual({ critical: 'P1', error: 'P2', warning: 'P3', info: 'P4' });
    const overridden = await parse({ ...trigger, payload: { ...trigger.payload, severity: 'warning' } }, { warning: 'P2' });
    expect(overridden.kind === 'alerts' && overridden.alerts[0]?.severity).toBe('P2');
  });

  it('makes up a dedup key for a trigger without one, as PagerDuty does', async () => {
    const { dedup_key: _omitted, ...withoutKey } = trigger;
    const first = await parse(withoutKey);
    const second = await parse(withoutKey);
    const keyOf = (outcome: IntakeOutcome): string | undefined => (outcome.kind === 'alerts' ? outcome.alerts[0]?.dedupKey : undefined);
    expect(keyOf(first)).toMatch(/^[0-9a-f]{32}$/);
    expect(keyOf(second)).not.toBe(keyOf(first));
  });

  it('acts on acknowledge and resolve by dedup key alone, whatever routing_key says', async () => {
    for (const action of ['acknowledge', 'resolve'] as const) {
      const outcome = await parse({ routing_key: 'any-other-key', event_action: action, dedup_key: 'sentry-issue-4711' });
      expect(outcome).toEqual({ kind: 'alerts', alerts: [{ dedupKey: 'sentry-issue-4711', action, title: 'sentry-issue-4711' }] });
    }
    const noRoutingKey = await parse({ event_action: 'resolve', dedup_key: 'k' });
    expect(noRoutingKey.kind).toBe('alerts');
  });

  it('keeps a long summary: one line of 255 characters as the title, the whole text in the description', async () => {
    const summary = `Checkout latency ${'x'.repeat(600)}\nsecond line`;
    const outcome = await parse({ ...trigger, payload: { ...trigger.payload, summary, custom_details: undefined } });
    const alert = outcome.kind === 'alerts' ? outcome.alerts[0] : undefined;
    expect(alert?.title).toHaveLength(255);
    expect(alert?.title).not.toContain('\n');
    expect(alert?.description).toBe(summary);
  });

  it('answers a change event 202 without an alert', async () => {
    const change = {
      routing_key: 'R0UT1NGKEY0123456789ABCDEFGHIJKL',
      payload: { summary: 'Deployed api v2.3.0', source: 'github', timestamp: '2026-03-01T11:00:00Z', custom_details: { sha: 'abc123' } },
    };
    expect(await parse(change)).toEqual({ kind: 'handled', status: 202, body: { status: 'success', message: 'Change event processed' } });
  });
});

describe('bad PagerDuty events', () => {
  it('answers 400 with the failing fields, as PagerDuty answers "invalid event"', async () => {
    const cases: [unknown, string][] = [
      [{ ...trigger, event_action: 'escalate' }, 'event_action'],
      [{ ...trigger, event_action: undefined }, 'event_action'],
      [{ ...trigger, payload: undefined }, 'payload'],
      [{ ...trigger, payload: { ...trigger.payload, severity: 'fatal' } }, 'payload.severity'],
      [{ ...trigger, payload: { ...trigger.payload, summary: '' } }, 'payload.summary'],
      [{ ...trigger, payload: { ...trigger.payload, summary: 'y'.repeat(1025) } }, 'payload.summary'],
      [{ ...trigger, payload: { ...trigger.payload, source: undefined } }, 'payload.source'],
      [{ ...trigger, payload: { ...trigger.payload, timestamp: 'yesterday' } }, 'payload.timestamp'],
      [{ ...trigger, dedup_key: 'k'.repeat(256) }, 'dedup_key'],
      [{ event_action: 'acknowledge' }, 'dedup_key'],
      [{ event_action: 'resolve', dedup_key: '' }, 'dedup_key'],
      [{ payload: { summary: '' } }, 'payload.summary'],
      [null, '(root)'],
      [[trigger], '(root)'],
    ];
    for (const [body, path] of cases) {
      const error = await rejection(body);
      expect([path, error.status, error.code, error.details?.map((detail) => detail.path)]).toEqual([path, 400, 'VALIDATION_ERROR', expect.arrayContaining([path])]);
    }
  });
});
