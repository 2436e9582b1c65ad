import { z } from 'zod';
import { sha256Hex } from '../../auth/secrets.js';
import { badRequest } from '../../http/errors.js';
import { zodDetails } from '../../http/router.js';
import { moreSevere, type Severity } from '../../incidents/transition.js';
import type { IntakeAlert, IntakeOutcome, IntakeRequest } from '../intakeAlert.js';

/*
 * Prometheus Alertmanager's webhook (payload version 4), which Grafana Alerting's webhook
 * contact point also sends with a few fields more (grafana.ts). Unknown fields are ignored, so
 * newer senders keep working.
 */

const Labels = z.record(z.string(), z.string());
const Instant = z
  .string()
  .max(64)
  .refine((value) => !Number.isNaN(Date.parse(value)), { message: 'must be an RFC 3339 instant' });

const Alert = z.object({
  status: z.enum(['firing', 'resolved']),
  labels: Labels,
  annotations: Labels.default({}),
  startsAt: Instant,
  endsAt: Instant.optional(),
  fingerprint: z.string().min(1).max(255).optional(),
});

export const AlertmanagerPayload = z.object({
  version: z.string().max(16).optional(),
  groupKey: z.string().min(1).max(10_000),
  status: z.enum(['firing', 'resolved']),
  receiver: z.string().max(1000).optional(),
  groupLabels: Labels.default({}),
  commonLabels: Labels.default({}),
  commonAnnotations: Labels.default({}),
  externalURL: z.string().max(2048).optional(),
  alerts: z.array(Alert).min(1).max(1000),
});
type Payload = z.infer<typeof AlertmanagerPayload>;
type AlertBody = z.infer<typeof Alert>;

export type Grouping = 'GROUP' | 'ALERT';

const MAX_KEY = 255;
const MAX_TITLE = 255;
const MAX_DESCRIPTION = 2000;
/** Alertmanager's "not ended" endsAt, the zero time of Go. */
const isZeroTime = (value: string | undefined): boolean => value === undefined || Date.parse(value) <= 0;

/** A groupKey can be long (every group_by label); a long one is named by its hash. */
const keyOf = (prefix: string, value: string): string => (prefix.length + value.length <= MAX_KEY ? `${prefix}${value}` : `${prefix}sha256:${sha256Hex(value)}`);

const oneLine = (text: string, max: number): string => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
};

export function parsePayload<T extends z.ZodType<Payload>>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const details = zodDetails(parsed.error);
    throw badRequest(`Not an Alertmanager webhook payload: ${details[0]?.path}: ${details[0]?.message}`, details);
  }
  return parsed.data;
}

const severityOf = (labels: Record<string, string>, map: Record<string, Severity> | undefined): Severity | undefined => {
  const value = labels.severity;
  return value !== undefined ? map?.[value] : undefined;
};

function mostSevere(severities: readonly (Severity | undefined)[]): Severity | undefined {
  let best: Severity | undefined;
  for (const s of severities) if (s !== undefined && (best === undefined || moreSevere(s, best))) best = s;
  return best;
}

const alertName = (alert: AlertBody): string => alert.annotations.summary ?? alert.labels.alertname ?? 'Alert';

function describe(alerts: readonly AlertBody[]): string {
  const lines = alerts.map((a) => {
    const labels = Object.entries(a.labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
    const text = a.annotations.description ?? a.annotations.summary ?? '';
    return `- [${a.status}] ${alertName(a)}${text && text !== alertName(a) ? `: ${text}` : ''} (${labels})`;
  });
  const all = lines.join('\n');
  return all.length <= MAX_DESCRIPTION ? all : `${all.slice(0, MAX_DESCRIPTION - 1)}…`;
}

/**
 * GROUP: the notification's group is the unit its senders already tuned for paging (group_by,
 * group_interval), and its status is `resolved` only once every alert in it is: one incident per
 * group, resolved exactly when Alertmanager says the group is. ALERT: one incident per alert,
 * keyed by its fingerprint, for senders that group too coarsely.
 */
export function alertsOf(payload: Payload, grouping: Grouping, severityMap: Record<string, Severity> | undefined, title?: string): IntakeAlert[] {
  if (grouping === 'ALERT') {
    return payload.alerts.map((alert, index) => {
      if (alert.fingerprint === undefined) {
        throw badRequest('Each alert needs a fingerprint when the integration opens one incident per alert', [{ path: `alerts.${index}.fingerprint`, message: 'Required' }]);
      }
      const resolved = alert.status === 'resolved';
      return {
        dedupKey: keyOf('fp#', alert.fingerprint),
        action: resolved ? 'resolve' : 'trigger',
        title: oneLine(alertName(alert), MAX_TITLE),
        description: describe([alert]),
        severity: severityOf(alert.labels, severityMap),
        labels: alert.labels,
        ...(payload.externalURL ? { source: payload.externalURL } : {}),
        occurredAt: resolved && !isZeroTime(alert.endsAt) ? alert.endsAt : alert.startsAt,
      } satisfies IntakeAlert;
    });
  }
  const resolved = payload.status === 'resolved';
  const firing = payload.alerts.filter((a) => a.status === 'firing');
  const instants = resolved
    ? payload.alerts.flatMap((a) => (isZeroTime(a.endsAt) || a.endsAt === undefined ? [] : [a.endsAt]))
    : (firing.length > 0 ? firing : payload.alerts).map((a) => a.startsAt);
  // Firing: the group began with its first alert. Resolved: it ended with its last.
  const sorted = instants.sort((a, b) => Date.parse(a) - Date.parse(b));
  const occurredAt = resolved ? sorted.at(-1) : sorted[0];
  const name = title ?? payload.commonAnnotations.summary ?? payload.commonLabels.alertname ?? payload.groupLabels.alertname ?? 'Alertmanager alert group';
  return [
    {
      dedupKey: keyOf('group#', payload.groupKey),
      action: resolved ? 'resolve' : 'trigger',
      title: oneLine(name, MAX_TITLE),
      description: describe(payload.alerts),
      severity: mostSevere((firing.length > 0 ? firing : payload.alerts).map((a) => severityOf(a.labels, severityMap))) ?? severityOf(payload.commonLabels, severityMap),
      labels: payload.commonLabels,
      ...(payload.externalURL ? { source: payload.externalURL } : {}),
      ...(occurredAt !== undefined ? { occurredAt } : {}),
    },
  ];
}

/** The grouping an integration chose travels in its settings; the parser reads it from there. */
export type AlertmanagerIntegration = IntakeRequest['integration'] & { grouping?: Grouping | undefined };

export async function alertmanagerParser(request: IntakeRequest): Promise<IntakeOutcome> {
  const payload = parsePayload(AlertmanagerPayload, request.body);
  if (payload.version !== undefined && payload.version !== '4') {
    throw badRequest(`Alertmanager webhook payload version ${payload.version} is not supported (version 4 is)`, [{ path: 'version', message: 'must be "4"' }]);
  }
  const integration: AlertmanagerIntegration = request.integration;
  return { kind: 'alerts', alerts: alertsOf(payload, integration.grouping ?? 'GROUP', request.integration.severityMap) };
}
