import { expect } from 'vitest';
import type { TestContext } from '../harness.js';
import type { User } from './users.js';

/** Shared steps of the integration (alerts in) tests: not a test file itself. */
export type CreatedIntegration = {
  id: number;
  workspaceId: number;
  name: string;
  kind: string;
  projectId: number | null;
  enabled: boolean;
  defaultSeverity: string;
  severityMap: Record<string, string>;
  grouping: string;
  secretHint: string;
  intakeUrl: string;
  secret: string;
};

export async function createIntegration(t: TestContext, user: User, body: Record<string, unknown> = {}): Promise<CreatedIntegration> {
  const res = await t.request<CreatedIntegration>('POST', '/integrations', {
    token: user.token,
    body: { workspaceId: user.workspaceId, name: 'Prometheus', kind: 'ALERTMANAGER', ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** The path of an intake URL, for the in-process app (which serves it under /api). */
export const intakePath = (integration: { intakeUrl: string }): string => new URL(integration.intakeUrl).pathname;

export const postIntake = (t: TestContext, integration: { intakeUrl: string }, body: unknown) => t.request('POST', intakePath(integration), { body });

type AlertInput = {
  status?: 'firing' | 'resolved';
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  startsAt?: string;
  endsAt?: string;
  fingerprint?: string;
};

/** An Alertmanager webhook notification (payload version 4) of one group. */
export function alertmanagerNotification(options: { groupKey?: string; status?: 'firing' | 'resolved'; alerts?: AlertInput[]; commonLabels?: Record<string, string> } = {}) {
  const status = options.status ?? 'firing';
  const alerts = (options.alerts ?? [{}]).map((a, i) => ({
    status: a.status ?? status,
    labels: a.labels ?? { alertname: 'HighLatency', severity: 'critical', instance: `web-${i}` },
    annotations: a.annotations ?? { summary: 'Latency is high' },
    startsAt: a.startsAt ?? '2026-03-01T11:58:00.000Z',
    endsAt: a.endsAt ?? (status === 'resolved' ? '2026-03-01T12:00:00.000Z' : '0001-01-01T00:00:00Z'),
    generatorURL: 'http://prometheus.example/graph',
    fingerprint: a.fingerprint ?? `fp${i}`,
  }));
  return {
    version: '4',
    groupKey: options.groupKey ?? '{}:{alertname="HighLatency"}',
    truncatedAlerts: 0,
    status,
    receiver: 'vigil',
    groupLabels: { alertname: 'HighLatency' },
    commonLabels: options.commonLabels ?? { alertname: 'HighLatency', severity: 'critical' },
    commonAnnotations: { summary: 'Latency is high' },
    externalURL: 'http://alertmanager.example:9093',
    alerts,
  };
}
