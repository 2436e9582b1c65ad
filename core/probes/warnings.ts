import type { CheckLatencyWarning, CheckSslExpiryWarning } from '../checks/events.js';
import type { OutboundConfig } from '../checks/outboundSchema.js';
import type { Deps } from '../deps.js';
import type { ProbeRunResult } from '../outbound/probe.js';
import type { CheckItem } from '../store/entities/check.js';
import { itemKey, outboxWrite, relayAfterWrite } from '../outbox/index.js';
import { isConditionalFailure } from '../store/conditional.js';
import type { OutboxEntry } from '../store/outbox.js';

/**
 * Latency and SSL-expiry warnings: at most one of each per check per hour (spec Events). The
 * cooldown is a conditional write of the check's `latencyWarnedAt` / `sslWarnedAt`, so regions
 * reporting together send one warning, not three.
 */

export const WARNING_COOLDOWN_MS = 60 * 60_000;
const DAY_MS = 86_400_000;

type WarningKind = 'latency' | 'ssl';
const COOLDOWN_FIELD = { latency: 'latencyWarnedAt', ssl: 'sslWarnedAt' } as const;

export type WarningDecision = { kind: 'latency'; latencyMs: number; thresholdMs: number } | { kind: 'ssl'; sslExpiresAt: string; daysLeft: number; thresholdDays: number };

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

type Warning = CheckLatencyWarning | CheckSslExpiryWarning;

/**
 * Takes the hour's cooldown for the warning's kind and, in the same conditional write, records the
 * warning as owed (core/outbox): a crash or a queue outage after the cooldown is taken delays the
 * warning until the next sweep instead of losing it for an hour. Returns the check's pending
 * outbox, or null when another run already warned within the hour.
 */
async function claimCooldown(deps: Deps, token: string, kind: WarningKind, warning: Warning, now: Date): Promise<OutboxEntry[] | null> {
  const field = COOLDOWN_FIELD[kind];
  const cutoff = new Date(now.getTime() - WARNING_COOLDOWN_MS).toISOString();
  const owed = outboxWrite([{ queue: 'alerts', body: warning }], now);
  try {
    const written = await deps.store.entities.check
      .patch({ token })
      .append({ outbox: owed.entries })
      .set({ [field]: now.toISOString(), ...owed.set })
      .where((attr, op) => `${op.notExists(attr.deletedAt)} AND (${op.notExists(attr[field])} OR ${op.lte(attr[field], cutoff)})`)
      .go({ response: 'all_new' });
    return written.data.outbox ?? owed.entries;
  } catch (err) {
    if (isConditionalFailure(err)) return null;
    throw err;
  }
}

/** Records and relays each warning whose cooldown this run wins (to the `alerts` queue); returns what was sent. */
export async function sendWarnings(
  deps: Deps,
  check: Pick<CheckItem, 'token' | 'checkId' | 'workspaceId' | 'projectId'>,
  region: string,
  warnings: readonly WarningDecision[],
  now: Date,
): Promise<Warning[]> {
  const sent: Warning[] = [];
  for (const warning of warnings) {
    const base = { checkId: check.checkId, workspaceId: check.workspaceId, projectId: check.projectId ?? null, region, at: now.toISOString() };
    // Alerts, not incident input: core/alerting/warningDispatch.ts delivers them to the workspace's channels.
    const message: Warning =
      warning.kind === 'latency'
        ? { type: 'check.latency_warning', ...base, latencyMs: warning.latencyMs, thresholdMs: warning.thresholdMs }
        : { type: 'check.ssl_expiry_warning', ...base, sslExpiresAt: warning.sslExpiresAt, daysLeft: warning.daysLeft, thresholdDays: warning.thresholdDays };
    const pending = await claimCooldown(deps, check.token, warning.kind, message, now);
    if (!pending) continue;
    await relayAfterWrite(deps, itemKey(deps.store.entities.check.get({ token: check.token })), pending);
    sent.push(message);
  }
  return sent;
}
