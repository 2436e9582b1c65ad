import { randomFillSync } from 'node:crypto';
import { encodeTime } from 'ulid';
import type { CheckItem } from '../store/entities/check.js';
import type { SignalItem } from '../store/entities/signal.js';
import { storedSignal } from './rawItems.js';
import { signalWriterFor } from './signalWriter.js';
import { SIGNAL_TTL_DAYS } from './limits.js';
import type { PingTable } from './pingStore.js';
import type { Signal } from './schema.js';

export type NewSignal = {
  type: SignalItem['type'];
  source: 'PING' | 'SYSTEM' | 'DEPLOYMENT' | 'API';
  sourceIp?: string | undefined;
  userAgent?: string | undefined;
  method?: string | undefined;
  payload?: { text: string; isJson: boolean } | undefined;
  durationMs?: number | undefined;
  details?: Record<string, unknown> | undefined;
  /** The id, when the caller took it first (a ping takes it with its instant); otherwise a new one. */
  signalId?: string | undefined;
  /** A run's START: when it becomes a missed run, as its entry in the missed-run index (core/sweep/missedRuns.ts). */
  runDue?: { runDueAt: string; runDueShard: string } | undefined;
};

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const pool = new Uint8Array(4096);
let offset = pool.length;

/**
 * A ULID for `now` (48-bit time, 80 random bits as 16 base-32 characters). The `ulid` package asks
 * the CSPRNG once per character; this takes the 16 bytes from a pool refilled 256 ids at a time.
 */
export function signalId(now: Date): string {
  if (offset + 16 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[(pool[offset + i] ?? 0) & 31];
  offset += 16;
  return encodeTime(now.getTime(), 10) + random;
}

/** The stored item for a signal received at `now`; it expires after SIGNAL_TTL_DAYS. */
export function signalItem(check: Pick<CheckItem, 'checkId' | 'workspaceId'>, signal: NewSignal, now: Date): SignalItem {
  const item: SignalItem = {
    checkId: check.checkId,
    workspaceId: check.workspaceId,
    signalId: signal.signalId ?? signalId(now),
    receivedAt: now.toISOString(),
    type: signal.type,
    source: signal.source,
    expiresAt: Math.floor(now.getTime() / 1000) + SIGNAL_TTL_DAYS * 86_400,
  };
  if (signal.sourceIp) item.sourceIp = signal.sourceIp;
  if (signal.userAgent) item.userAgent = signal.userAgent.slice(0, 512);
  if (signal.method) item.method = signal.method;
  if (signal.payload) {
    item.payload = signal.payload.text;
    item.payloadIsJson = signal.payload.isJson;
  }
  if (signal.durationMs !== undefined) item.durationMs = signal.durationMs;
  if (signal.details) item.details = signal.details;
  if (signal.runDue) {
    item.runDueAt = signal.runDue.runDueAt;
    item.runDueShard = signal.runDue.runDueShard;
  }
  return item;
}

/** One put (grouped with concurrent ones). Callers that must not lose a signal let its failure reach the client. */
export async function putSignal(deps: { store: PingTable }, item: SignalItem): Promise<void> {
  await signalWriterFor(deps.store).write(storedSignal(item));
}

export function toSignal(item: SignalItem): Signal {
  let payload: unknown = null;
  if (item.payload !== undefined) {
    payload = item.payload;
    if (item.payloadIsJson) {
      try {
        payload = JSON.parse(item.payload);
      } catch {
        payload = item.payload;
      }
    }
  }
  return {
    id: item.signalId,
    checkId: item.checkId,
    type: item.type,
    source: item.source,
    receivedAt: item.receivedAt,
    sourceIp: item.sourceIp ?? null,
    userAgent: item.userAgent ?? null,
    method: item.method ?? null,
    payload,
    durationMs: item.durationMs ?? null,
    details: (item.details as Record<string, unknown> | undefined) ?? null,
  };
}
