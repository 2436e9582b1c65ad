import { z } from 'zod';
import { instant } from '../instant.js';
import { outboxWrite, type OutboxWrite } from '../outbox/owe.js';
import { CHECK_STATUSES, type CheckItem } from '../store/entities/check.js';

/**
 * The messages on the `incidents` queue: one zod schema each, which the incident worker parses
 * with and whose types the publishers build. Published only when something changed; consumers
 * are idempotent (the same message may arrive twice, or two at once).
 */

/** What moved a check: PING, FAIL_PING, SWEEP, PROBE, PAUSE, RESUME, DEPLOYMENT, or DELETE (from = to: the check is gone). */
export const STATUS_CHANGE_CAUSES = ['PING', 'FAIL_PING', 'SWEEP', 'PROBE', 'PAUSE', 'RESUME', 'DEPLOYMENT', 'DELETE'] as const;
export type StatusChangeCause = (typeof STATUS_CHANGE_CAUSES)[number];

export const CheckStatusChanged = z.object({
  type: z.literal('check.status_changed'),
  checkId: z.number().int().positive(),
  workspaceId: z.number().int().positive(),
  projectId: z.number().int().positive().nullable(),
  from: z.enum(CHECK_STATUSES),
  to: z.enum(CHECK_STATUSES),
  /** When the transition happened (the unit of work's captured instant). */
  at: instant,
  cause: z.enum(STATUS_CHANGE_CAUSES),
});
export type CheckStatusChanged = z.infer<typeof CheckStatusChanged>;

/** A ping payload reported dependencies: `down` opens a DEPENDENCY_DOWN incident, `ok` resolves it. */
export const DependenciesReported = z.object({
  type: z.literal('dependencies.reported'),
  checkId: z.number().int().positive(),
  workspaceId: z.number().int().positive(),
  projectId: z.number().int().positive().nullable(),
  dependencies: z.array(z.object({ name: z.string(), status: z.enum(['ok', 'down']) })),
  at: instant,
});
export type DependenciesReported = z.infer<typeof DependenciesReported>;

export const IncidentQueueMessage = z.discriminatedUnion('type', [CheckStatusChanged, DependenciesReported]);
export type IncidentQueueMessage = z.infer<typeof IncidentQueueMessage>;

type StatusSubject = Pick<CheckItem, 'checkId' | 'workspaceId'> & { projectId?: number | null | undefined };

/** The one way to build a `check.status_changed`. */
export function statusChangedMessage(
  check: StatusSubject,
  from: CheckItem['status'],
  to: CheckItem['status'],
  cause: StatusChangeCause,
  at: Date,
): CheckStatusChanged {
  return { type: 'check.status_changed', checkId: check.checkId, workspaceId: check.workspaceId, projectId: check.projectId ?? null, from, to, at: at.toISOString(), cause };
}

/**
 * Tells the incident worker that a check moved (or, with cause DELETE, is gone): the message, as
 * owed by the write that makes the move (core/outbox), which records it and relays it right after.
 */
export function statusChangeOwed(check: StatusSubject, change: { from: CheckItem['status']; to: CheckItem['status'] }, cause: StatusChangeCause, now: Date): OutboxWrite {
  return outboxWrite([{ queue: 'incidents', body: statusChangedMessage(check, change.from, change.to, cause, now) }], now);
}

/**
 * An outbound probe answered slower than the check's `latencyWarnMs`, or its TLS certificate
 * expires within `sslExpiryWarnDays`. At most one of each kind per check per hour (spec Events);
 * published by core/probes on the `alerts` queue (not `incidents`: they open no incident).
 */
export type CheckLatencyWarning = {
  type: 'check.latency_warning';
  checkId: number;
  workspaceId: number;
  projectId: number | null;
  region: string;
  latencyMs: number;
  thresholdMs: number;
  at: string;
};

export type CheckSslExpiryWarning = {
  type: 'check.ssl_expiry_warning';
  checkId: number;
  workspaceId: number;
  projectId: number | null;
  region: string;
  sslExpiresAt: string;
  daysLeft: number;
  thresholdDays: number;
  at: string;
};

/**
 * A heartbeat job succeeded sooner than its `minIntervalSeconds` after the previous success: one
 * per episode (until a success on time), owed by the ping's own write on the `alerts` queue.
 * `region` is always "heartbeat" (the warning alerts share their envelope with probe warnings).
 */
export type CheckTooFrequent = {
  type: 'check.too_frequent';
  checkId: number;
  workspaceId: number;
  projectId: number | null;
  region: 'heartbeat';
  sinceSeconds: number;
  minIntervalSeconds: number;
  at: string;
};
