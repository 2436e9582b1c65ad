import { loadConfig } from '../core/config.js';
import { startLocalServer } from '../core/localServer.js';
import { drivePingsApart, startApart, type PingRun } from './apart.js';
import { seedChecks, signUp } from './seed.js';

type Print = (name: string, value: number, digits?: number) => void;
type FloodRun = { byStatus: Record<string, number>; seconds: number; p50: number; max: number };

const CLIENTS = 50;
const CHECKS = 2_000;
const WINDOW_SECONDS = Number(process.env.BENCH_PASSWORD_WINDOW_SECONDS ?? 10);
const ATTEMPTS = 300;

/**
 * The attack on `npm start` at the production scrypt cost: 300 concurrent status-page
 * password attempts, each on a new slug, land a second into a window of the 50-client ping load.
 * The same window without the flood is the baseline; the figure is how far the flood moves ping
 * p99 (target: at most 2). Once from one address (the per-address limit's case) and once from 300
 * (past every per-address limit: the process-wide hash bound's case).
 */
export async function passwordFloodBenchmark(endpoint: string, queueEndpoint: string, dataDir: string, print: Print): Promise<void> {
  const config = loadConfig({ PORT: '0', VIGIL_TABLE_NAME: 'bench_password', VIGIL_DYNAMODB_ENDPOINT: endpoint, VIGIL_DATA_DIR: dataDir });
  const server = await startLocalServer(config, { log: false, queueEndpoint });
  const origin = server.baseUrl.replace(/\/api$/, '');
  try {
    const t0 = performance.now();
    const step = (what: string) => console.error(`bench: password: ${what} at ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const target = await signUp(origin, 'password');
    step('signed up');
    const now = server.deps.clock.now();
    const nextDueAt = new Date(now.getTime() + 3_600_000).toISOString();
    const checks = await seedChecks(server.deps, target, CHECKS, () => ({ status: 'OK', lastPingAt: now.toISOString(), nextDueAt, dueAt: nextDueAt, dueShard: '0' }));
    const tokens = checks.map((check) => check.token);
    const pings = () => drivePingsApart(origin, tokens, { clients: CLIENTS, maxPings: 1_000_000, maxSeconds: WINDOW_SECONDS });
    const warm = await drivePingsApart(origin, tokens, { clients: CLIENTS, maxPings: tokens.length, maxSeconds: 60 });
    if (warm.failed > 0) throw new Error(`${warm.failed} warm-up pings failed`);
    step('warm');

    const base = await pings();
    step('base');
    // The flood's process is loaded before the ping window opens, and sends a second into it.
    const flooded = async (addresses: number): Promise<[PingRun, FloodRun]> => {
      const flood = startApart<FloodRun>('floodgen.ts', { origin, attempts: ATTEMPTS, addresses, delayMs: 1_000 });
      await flood.printed('ready');
      const load = startApart<PingRun>('loadgen.ts', { origin, tokens, clients: CLIENTS, maxPings: 1_000_000, maxSeconds: WINDOW_SECONDS });
      await load.printed('started');
      flood.send('go');
      return Promise.all([load.result, flood.result]);
    };
    const [oneAddress, oneFlood] = await flooded(1);
    step('one');
    const [manyAddresses, manyFlood] = await flooded(ATTEMPTS);
    step('many');

    print('ping_p99_ms_without_flood', base.p99);
    report(print, '', base, oneAddress, oneFlood);
    report(print, '_many_addresses', base, manyAddresses, manyFlood);
  } finally {
    await server.stop();
  }
}

function report(print: Print, suffix: string, base: PingRun, run: PingRun, flood: FloodRun): void {
  print(`ping_p99_ms_under_password_flood${suffix}`, run.p99);
  print(`password_flood_ping_p99_ratio${suffix}`, run.p99 / base.p99);
  // 401: hashed and answered "wrong password"; 429: refused before any hash.
  print(`password_flood_hashed${suffix}`, flood.byStatus['401'] ?? 0);
  print(`password_flood_refused${suffix}`, flood.byStatus['429'] ?? 0);
  print(`password_flood_other${suffix}`, ATTEMPTS - (flood.byStatus['401'] ?? 0) - (flood.byStatus['429'] ?? 0));
  print(`password_flood_seconds${suffix}`, flood.seconds);
  print(`ping_errors_under_password_flood${suffix}`, run.failed);
}
