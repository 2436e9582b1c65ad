import { z } from 'zod';
import { instant } from '../instant.js';
import { CHECK_STATUSES, SEVERITIES } from '../store/entities/check.js';
import { STATUS_CHANGE_CAUSES, type StatusChangedMessage } from './statusMessage.js';

export { statusChangeOwed, type StatusChangeCause } from './statusMessage.js';

/**
 * The messages on the `incidents` queue: one zod schema each, which the incident worker parses
 * with and whose types the publishers build. Published only when something changed; consumers
 * are idempotent (the same message may arrive twice, or two at once).
 */

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
  check: z.object({ name: z.string(), lateSeverity: z.enum(SEVERITIES), downSeverity: z.enum(SEVERITIES), muted: z.boolean().optional() }).optional(),
});
export type CheckStatusChanged = z.infer<typeof CheckStatusChanged>;
/** The builder in statusMessage.ts (zod-free, for the ping path) makes exactly what this schema reads. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** @public A compile-time check: exported so that the unused-locals rule keeps it. */
export const STATUS_MESSAGE_MATCHES_SCHEMA: Same<StatusChangedMessage, CheckStatusChanged> = true;

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
