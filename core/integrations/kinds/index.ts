import type { IntegrationKind } from '../../store/entities/integration.js';
import type { IntakeAlert, IntakeParser } from '../intakeAlert.js';
import { alertmanagerParser } from './alertmanager.js';
import { grafanaParser } from './grafana.js';
import { pagerDutyAnswer, pagerDutyParser } from './pagerduty.js';
import { snsParser } from './sns.js';

/** Each kind's parser: what its sender posts -> IntakeAlerts (or an answer of its own). */
export const INTAKE_PARSERS: Record<IntegrationKind, IntakeParser> = {
  ALERTMANAGER: alertmanagerParser,
  GRAFANA: grafanaParser,
  SNS: snsParser,
  PAGERDUTY_EVENTS: pagerDutyParser,
};

/** The answer to taken alerts where a kind's senders expect their own (PagerDuty's 202 with the dedup key). */
export const INTAKE_ANSWERS: Partial<Record<IntegrationKind, (alerts: IntakeAlert[], incidentIds: number[]) => { status: 200 | 202; body: Record<string, unknown> }>> = {
  PAGERDUTY_EVENTS: pagerDutyAnswer,
};
