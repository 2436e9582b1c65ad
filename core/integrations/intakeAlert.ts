import type { Severity } from '../incidents/transition.js';

/** One alert as every intake kind normalises it: one incident per (integration, dedupKey) episode. */
export type IntakeAlert = {
  /** Stable key of the alert within its integration (Alertmanager groupKey or fingerprint, PagerDuty dedup_key, SNS alarm name). At most 255 characters. */
  dedupKey: string;
  action: 'trigger' | 'acknowledge' | 'resolve';
  /** One line, tenant text. */
  title: string;
  description?: string | undefined;
  /** Mapped by the parser; undefined: the integration's default severity. */
  severity?: Severity | undefined;
  source?: string | undefined;
  labels?: Record<string, string> | undefined;
  /** ISO instant the source says the alert started/ended, if it says. */
  occurredAt?: string | undefined;
};

/** What a kind's parser makes of one intake request. */
export type IntakeOutcome =
  | { kind: 'alerts'; alerts: IntakeAlert[] }
  /** Answered without alerts (SNS SubscriptionConfirmation done, UnsubscribeConfirmation, a PagerDuty `change` event). */
  | { kind: 'handled'; status: 200 | 202; body: Record<string, unknown> };

export type IntakeRequest = {
  /** The parsed JSON body (the intake route parses and bounds it; bad JSON is a 400 before any parser). */
  body: unknown;
  /** The raw body text (SNS sends text/plain JSON). */
  raw: string;
  headers: Headers;
  /** The integration's settings the parser may need (severity label mapping etc.). */
  integration: { integrationId: number; workspaceId: number; kind: string; severityMap?: Record<string, Severity> | undefined };
};

/** A kind's parser: throws HttpError (core/http/errors.ts) with a 4xx for a bad payload; changes nothing itself. */
export type IntakeParser = (request: IntakeRequest, deps: import('../deps.js').Deps) => Promise<IntakeOutcome>;
