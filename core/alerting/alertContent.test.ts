import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IncidentAlertMessage } from '../incidents/events.js';
import type { IncidentItem } from '../store/entities/incident.js';
import { composeAlert, composeWarningAlert, deliveryKey, notificationFor, warningDeliveryKey, webhookIdFor, type WarningAlertMessage } from './alertContent.js';

const message = (type: IncidentAlertMessage['type'], severity: IncidentAlertMessage['severity'] = 'P2'): IncidentAlertMessage => ({
  type,
  incidentId: 7,
  workspaceId: 1,
  projectId: 2,
  checkId: 3,
  severity,
  at: '2026-03-01T12:00:00.000Z',
});

const incident: IncidentItem = {
  incidentId: 7,
  publicId: '01jabcdefghjkmnpqrstvwxyz0',
  workspaceId: 1,
  projectId: 2,
  checkId: 3,
  title: 'nightly backup is down',
  state: 'ACTIVE',
  reason: 'SERVICE_DOWN',
  severity: 'P1',
  startedAt: '2026-03-01T11:59:00.000Z',
  declared: false,
  revision: 2,
  createdAt: '2026-03-01T11:59:00.000Z',
  updatedAt: '2026-03-01T12:00:00.000Z',
};

describe('notificationFor', () => {
  it('maps the queue contract to DESIGN 8 event types, one kind per raise, and skips monitoring', () => {
    expect(notificationFor(message('incident.opened'))).toEqual({ event: 'incident.opened', kind: 'opened', timelineKey: 'opened' });
    expect(notificationFor(message('incident.severity_changed', 'P1'))).toEqual({ event: 'incident.severity_changed', kind: 'escalated#P1', timelineKey: 'severity#P1' });
    expect(notificationFor(message('incident.severity_changed', 'P2'))?.kind).toBe('escalated#P2');
    expect(notificationFor(message('incident.acknowledged'))).toMatchObject({ event: 'incident.acknowledged', timelineKey: 'acknowledged' });
    expect(notificationFor(message('incident.resolved'))).toMatchObject({ event: 'incident.resolved', timelineKey: 'resolved' });
    expect(notificationFor(message('incident.monitoring'))).toBeNull();
  });
});

describe('webhookIdFor', () => {
  it('is the same for the same delivery and differs between deliveries', () => {
    const delivery = fc.tuple(fc.integer({ min: 1, max: 1e9 }), fc.constantFrom('opened', 'escalated#P1', 'acknowledged', 'resolved'), fc.integer({ min: 1, max: 1e9 }));
    fc.assert(
      fc.property(delivery, delivery, ([i, k, c], [j, l, d]) => {
        const a = webhookIdFor(deliveryKey(i, k, c));
        expect(a).toBe(webhookIdFor(deliveryKey(i, k, c)));
        expect(a).toMatch(/^msg_[A-Za-z0-9_-]{32}$/);
        if (i !== j || k !== l || c !== d) expect(a).not.toBe(webhookIdFor(deliveryKey(j, l, d)));
      }),
    );
  });
});

describe('composeAlert', () => {
  it('keeps tenant text on one line in the subject and carries the incident and the change in data', () => {
    const alert = composeAlert(
      {
        message: message('incident.severity_changed', 'P1'),
        notification: { event: 'incident.severity_changed', kind: 'escalated#P1', timelineKey: 'severity#P1' },
        incident: { ...incident, title: 'db\r\nBcc: x@evil.example\tdown' },
        check: { checkId: 3, name: 'nightly backup' },
        detail: 'Severity raised from P3 to P1',
      },
      'msg_x',
    );
    expect(alert.subject).toBe('[P1] Incident severity raised to P1: db Bcc: x@evil.example down');
    expect(alert).toMatchObject({ id: 'msg_x', type: 'incident.severity_changed' });
    expect(alert.text.split('\n').slice(0, 2)).toEqual(['db Bcc: x@evil.example down', 'Severity raised from P3 to P1']);
    expect(alert.text).toContain('Check: nightly backup (#3)');
    expect(alert.data).toMatchObject({
      incident: { id: 7, publicId: incident.publicId, state: 'ACTIVE', acknowledgedAt: null },
      check: { id: 3, name: 'nightly backup' },
      severity: 'P1',
      occurredAt: '2026-03-01T12:00:00.000Z',
      detail: 'Severity raised from P3 to P1',
    });
  });

  it('bounds a long title in the subject', () => {
    const alert = composeAlert(
      {
        message: message('incident.opened'),
        notification: { event: 'incident.opened', kind: 'opened', timelineKey: 'opened' },
        incident: { ...incident, title: 'x'.repeat(1000) },
        check: undefined,
        detail: undefined,
      },
      'msg_y',
    );
    expect(alert.subject.length).toBeLessThan(240);
    expect(alert.subject.endsWith('…')).toBe(true);
    expect(alert.data).toMatchObject({ check: null, detail: null });
  });
});

describe('warning alert content', () => {
  const cert = (daysLeft: number): WarningAlertMessage => ({
    type: 'check.ssl_expiry_warning',
    checkId: 3,
    workspaceId: 1,
    projectId: null,
    region: 'us-east-1',
    sslExpiresAt: '2026-03-02T06:00:00.000Z',
    daysLeft,
    thresholdDays: 7,
    at: '2026-03-01T12:00:00.000Z',
  });
  const check = { checkId: 3, name: 'shop\r\nBcc: evil@example.com' };

  it('says when the certificate expires, keeps tenant names on one line, and carries the event type', () => {
    expect(composeWarningAlert(cert(0), check, 'msg_x').subject).toBe('[Warning] TLS certificate expires within a day: shop Bcc: evil@example.com');
    expect(composeWarningAlert(cert(1), check, 'msg_x').subject).toMatch(/expires in 1 day: /);
    const composed = composeWarningAlert(cert(5), check, 'msg_x');
    expect(composed).toMatchObject({ id: 'msg_x', type: 'check.ssl_expiry_warning', data: { check: { id: 3 }, daysLeft: 5, thresholdDays: 7, projectId: null } });
    expect(composed.text.split('\n')[0]).toBe(
      'The TLS certificate served to check "shop Bcc: evil@example.com" expires at 2026-03-02T06:00:00.000Z (in 5 days), within its warning window of 7 days. Renew it before it expires.',
    );
  });

  it('keys a delivery by check, type, instant and channel', () => {
    expect(warningDeliveryKey(cert(1), 9)).toBe('alert#check3#check.ssl_expiry_warning#2026-03-01T12:00:00.000Z#9');
    expect(webhookIdFor(warningDeliveryKey(cert(1), 9))).not.toBe(webhookIdFor(warningDeliveryKey(cert(1), 10)));
  });
});
