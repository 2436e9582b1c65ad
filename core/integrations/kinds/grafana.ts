import { z } from 'zod';
import type { IntakeOutcome, IntakeRequest } from '../intakeAlert.js';
import { AlertmanagerPayload, alertsOf, parsePayload, type AlertmanagerIntegration } from './alertmanager.js';

/**
 * Grafana Alerting's webhook contact point: Alertmanager's payload (its own `version`, "1") with
 * Grafana's fields beside it. Its `title` ("[FIRING:2] ...") counts alerts, so it names an
 * incident only when no alertname or summary does.
 */
const GrafanaPayload = AlertmanagerPayload.extend({
  orgId: z.number().int().optional(),
  title: z.string().max(2000).optional(),
  state: z.string().max(64).optional(),
  message: z.string().max(100_000).optional(),
});

export async function grafanaParser(request: IntakeRequest): Promise<IntakeOutcome> {
  const payload = parsePayload(GrafanaPayload, request.body);
  const integration: AlertmanagerIntegration = request.integration;
  const named = payload.commonAnnotations.summary ?? payload.commonLabels.alertname ?? payload.groupLabels.alertname ?? payload.title;
  return { kind: 'alerts', alerts: alertsOf(payload, integration.grouping ?? 'GROUP', request.integration.severityMap, named) };
}
