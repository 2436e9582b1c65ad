/**
 * Reconnect delays: exponential with full jitter (AWS Architecture Blog, "Exponential Backoff And
 * Jitter"), so a server restart does not get every open dashboard back in the same instant.
 */
export const BACKOFF = { baseMs: 500, capMs: 30_000 } as const;

export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF.capMs, BACKOFF.baseMs * 2 ** Math.max(0, attempt));
  return Math.floor(random() * ceiling);
}
