import type { CheckItem } from '../store/entities/check.js';

type Status = CheckItem['status'];

/**
 * The messages on the `incidents` queue. Published only when something changed; consumers are
 * idempotent (the same message may arrive twice, or two at once).
 */
export type CheckStatusChanged = {
  type: 'check.status_changed';
  checkId: number;
  workspaceId: number;
  projectId: number | null;
  from: Status;
  to: Status;
  /** When the transition happened (the unit of work's captured instant). */
  at: string;
  /** What caused it: PING, FAIL_PING, SWEEP, PROBE, PAUSE, RESUME, DEPLOYMENT, DELETE. */
  cause: 'PING' | 'FAIL_PING' | 'SWEEP' | 'PROBE' | 'PAUSE' | 'RESUME' | 'DEPLOYMENT' | 'DELETE';
};

/** A ping payload reported dependencies: `down` opens a DEPENDENCY_DOWN incident, `ok` resolves it. */
export type DependenciesReported = {
  type: 'dependencies.reported';
  checkId: number;
  workspaceId: number;
  projectId: number | null;
  dependencies: { name: string; status: 'ok' | 'down' }[];
  at: string;
};

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

export type IncidentQueueMessage = CheckStatusChanged | DependenciesReported;
