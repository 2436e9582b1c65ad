import { Pool } from 'undici';

export type LoadResult = { completed: number; failed: number; seconds: number; latenciesMs: Float64Array };

/**
 * `clients` concurrent keep-alive clients, each sending one ping at a time, round-robin over the
 * tokens (so no check is pinged twice within its 1-second dedup window), until `maxPings` are sent
 * or `maxSeconds` have passed. Loopback only.
 */
export async function drivePings(
  origin: string,
  tokens: readonly string[],
  options: { clients: number; maxPings: number; maxSeconds: number; startAt?: number; pathPrefix?: string },
): Promise<LoadResult> {
  const pool = new Pool(origin, { connections: options.clients, pipelining: 1 });
  const latencies = new Float64Array(options.maxPings);
  let next = 0;
  let completed = 0;
  let failed = 0;
  const started = performance.now();
  const deadline = started + options.maxSeconds * 1000;
  const offset = options.startAt ?? 0;
  // Vigil's own ping path, or the Healthchecks-compatible one (`/api/ping/`).
  const prefix = options.pathPrefix ?? '/api/signals/ping/';

  const client = async () => {
    while (next < options.maxPings && performance.now() < deadline) {
      const index = next++;
      const token = tokens[(offset + index) % tokens.length];
      const sent = performance.now();
      const res = await pool.request({ path: `${prefix}${token}`, method: 'GET' });
      await res.body.dump();
      if (res.statusCode === 200) latencies[completed++] = performance.now() - sent;
      else failed++;
    }
  };
  await Promise.all(Array.from({ length: options.clients }, client));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { completed, failed, seconds, latenciesMs: latencies.subarray(0, completed) };
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
