import { HttpError } from '../../http/errors.js';
import type { IntegrationKind } from '../../store/entities/integration.js';
import type { IntakeParser } from '../intakeAlert.js';
import { alertmanagerParser } from './alertmanager.js';
import { grafanaParser } from './grafana.js';

/** Until its parser lands, a kind's intake says so plainly rather than pretending to take alerts. */
const unsupported =
  (kind: IntegrationKind): IntakeParser =>
  async () => {
    throw new HttpError('INTEGRATION_KIND_UNSUPPORTED', `Intake for ${kind} integrations is not available in this version`);
  };

/** Each kind's parser: what its sender posts -> IntakeAlerts (or an answer of its own). */
export const INTAKE_PARSERS: Record<IntegrationKind, IntakeParser> = {
  ALERTMANAGER: alertmanagerParser,
  GRAFANA: grafanaParser,
  SNS: unsupported('SNS'),
  PAGERDUTY_EVENTS: unsupported('PAGERDUTY_EVENTS'),
};
