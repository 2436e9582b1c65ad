import type { Deps } from '../deps.js';
import { HttpError, notFound } from '../http/errors.js';
import { consumeRateLimit, enforce, type RateLimitRule } from '../http/rateLimit.js';
import { applyIntakeAlert } from './apply.js';
import { integrationBySecret, severityMapOf } from './integrations.js';
import type { IntakeRequest } from './intakeAlert.js';
import { INTAKE_ANSWERS, INTAKE_PARSERS } from './kinds/index.js';

/** Per integration: an Alertmanager with many groups sends in bursts, a runaway loop is stopped. */
export const INTAKE_RATE_LIMIT: RateLimitRule = { name: 'intake', limit: 600, windowSeconds: 60 };

/** One answer for a wrong, rotated or disabled secret and for no secret at all: intake URLs are capabilities. */
const unknownIntake = () => notFound('Integration');

export type IntakeAnswer = { status: 200 | 202; body: Record<string, unknown> };

/**
 * One intake request: the secret opens an enabled integration (else 404), its rate limit is
 * spent, the body is JSON (else 400, before any parser), the kind's parser makes alerts of it
 * (a bad payload: its 4xx, nothing written), and each alert is applied in order.
 */
export async function receiveIntake(deps: Deps, secret: string | undefined, raw: string, headers: Headers): Promise<IntakeAnswer> {
  if (!secret) throw unknownIntake();
  const integration = await integrationBySecret(deps, secret);
  if (!integration) throw unknownIntake();
  enforce(
    await consumeRateLimit(deps, INTAKE_RATE_LIMIT, `integration:${integration.integrationId}`),
    'Too many intake requests for this integration: try again after Retry-After',
  );
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new HttpError('MALFORMED_JSON', 'The request body is not valid JSON');
  }
  const request: IntakeRequest = {
    body,
    raw,
    headers,
    // `grouping` rides along for the Alertmanager-format parsers (kinds/alertmanager.ts).
    integration: Object.assign(
      { integrationId: integration.integrationId, workspaceId: integration.workspaceId, kind: integration.kind, severityMap: severityMapOf(integration) },
      { grouping: integration.grouping },
    ),
  };
  const outcome = await INTAKE_PARSERS[integration.kind](request, deps);
  if (outcome.kind === 'handled') return { status: outcome.status, body: outcome.body };
  const now = deps.clock.now();
  const incidentIds: number[] = [];
  for (const alert of outcome.alerts) {
    const incidentId = await applyIntakeAlert(deps, integration, alert, now);
    if (incidentId !== undefined && !incidentIds.includes(incidentId)) incidentIds.push(incidentId);
  }
  const own = INTAKE_ANSWERS[integration.kind];
  return own ? own(outcome.alerts, incidentIds) : { status: 200, body: { accepted: outcome.alerts.length, incidentIds } };
}

/** The secret of `Authorization: Bearer <secret>`, if the header says so. */
export function bearerSecret(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}
