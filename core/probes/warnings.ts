import type { CheckLatencyWarning, CheckSslExpiryWarning } from '../checks/events.js';
import type { OutboundConfig } from '../checks/outboundSchema.js';
import type { Deps } from '../deps.js';
import type { ProbeRunResult } from '../outbound/probe.js';
import type { CheckItem } from '../store/entities/check.js';
import { isConditionalFailure } from '../store/conditional.js';

/**
 * Latency and SSL-expiry warnings: at most one of each per check per hour (spec Events). The
 * cooldown is a conditional write of the check's `latencyWarnedAt` / `sslWarnedAt`, so regions
 * reporting together send one warning, not three.
 */

export const WARNING_COOLDOWN_MS = 60 * 60_000;
const DAY_MS = 86_400_000;

type WarningKind = 'latency' | 'ssl';
const COOLDOWN_FIELD = { latency: 'latencyWarnedAt', ssl: 'sslWarnedAt' } as const;

export type WarningDecision =
  | { kind: 'latency'; latencyMs: number; thresholdMs: number }
  | { kind: 'ssl'; sslExpiresAt: string; daysLeft: number; thresholdDays: number };

/** What a run warns about (before the cooldown). Only successful runs warn: a failure is the status's business. */
export function warningsFor(result: ProbeRunResult, config: Pick<OutboundConfig, 'latencyWarnMs' | 'sslExpiryWarnDays'>, now: Date): WarningDecision[] {
  if (!result.ok) return [];
  const warnings: WarningDecision[] = [];
  if (config.latencyWarnMs != null && result.latencyMs > config.latencyWarnMs) {
    warnings.push({ kind: 'latency', latencyMs: Math.round(result.latencyMs), thresholdMs: config.latencyWarnMs });
  }
  if (result.sslExpiresAt !== null) {
    const left = Date.parse(result.sslExpiresAt) - now.getTime();
    if (left < config.sslExpiryWarnDays * DAY_MS) {
      warnings.push({ kind: 'ssl', sslExpiresAt: result.sslExpiresAt, daysLeft: Math.max(0, Math.floor(left / DAY_MS)), thresholdDays: config.sslExpiryWarnDays });
    }
  }
  return warnings;
}

/** Takes the hour's cooldown for `kind`; false when another run already warned within the hour. */
async function claimCooldown(deps: Deps, token: string, kind: WarningKind, now: Date): Promise<boolean> {
  const field = COOLDOWN_FIELD[kind];
  const cutoff = new Date(now.getTime() - WARNING_COOLDOWN_MS).toISOString();
  try {
    await deps.store.entities.check
      .patch({ token })
      .set({ [field]: now.toISOString() })
      .where((attr, op) => `${op.notExists(attr.deletedAt)} AND (${op.notExists(attr[field])} OR ${op.lte(attr[field], cutoff)})`)
      .go({ response: 'none' });
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

/** Publishes each warning whose cooldown this run wins on the `alerts` queue; returns what was sent. */
export async function sendWarnings(
  deps: Deps,
  check: Pick<CheckItem, 'token' | 'checkId' | 'workspaceId' | 'projectId'>,
  region: string,
  warnings: readonly WarningDecision[],
  now: Date,
): Promise<(CheckLatencyWarning | CheckSslExpiryWarning)[]> {
  const sent: (CheckLatencyWarning | CheckSslExpiryWarning)[] = [];
  for (const warning of warnings) {
    if (!(await claimCooldown(deps, check.token, warning.kind, now))) continue;
    const base = { checkId: check.checkId, workspaceId: check.workspaceId, projectId: check.projectId ?? null, region, at: now.toISOString() };
    sent.push(
      warning.kind === 'latency'
        ? { type: 'check.latency_warning', ...base, latencyMs: warning.latencyMs, thresholdMs: warning.thresholdMs }
        : { type: 'check.ssl_expiry_warning', ...base, sslExpiresAt: warning.sslExpiresAt, daysLeft: warning.daysLeft, thresholdDays: warning.thresholdDays },
    );
  }
  // Alerts, not incident input: core/alerting/warningDispatch.ts delivers them to the workspace's channels.
  if (sent.length > 0) await deps.queue.publish('alerts', sent);
  return sent;
}
