import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createApp } from './app.js';
import type { Deps } from './deps.js';
import { createAppShell } from './appShell.js';
import { installCounters } from './metrics/install.js';
import { installMetricsRoutes } from './metrics/routes.js';
import { hcPingRoutes } from './signals/hcPing.js';
import { createSignalApp, SIGNAL_APP_PREFIX } from './signalApp.js';
import type { Config } from './config.js';
import { queueDataDir, startEmbeddedStore, type EmbeddedStore } from './adapters/local/embeddedStore.js';
import { createLocalDeps, type LocalDeps } from './runtime.js';
import { startLocalWorkers } from './workers/local.js';
import { attachLocalStreams, LOCAL_STREAM_PATH } from './streams/local.js';
import { withDashboard } from './adapters/local/dashboardSite.js';

type Fetch<Env> = (request: Request, env: Env) => Response | Promise<Response>;

/**
 * A 413 is answered before the body is read, and the server then discards the rest of it or, past
 * a cap, drops the connection; a client that reused the connection would lose its next request.
 * `Connection: close` tells it to open a new one. Only a 413 is rebuilt.
 */
export function closingAfterOversized<Env>(fetch: Fetch<Env>): Fetch<Env> {
  const close = (response: Response): Response => {
    if (response.status !== 413) return response;
    const headers = new Headers(response.headers);
    headers.set('connection', 'close');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
  return (request, env) => {
    const response = fetch(request, env);
    return response instanceof Promise ? response.then(close) : close(response);
  };
}

/** How many new requests one turn of the event loop starts (see `admittingPerTurn`). */
export const ADMIT_PER_TURN = 8;

/**
 * Starts at most `perTurn` new requests per turn of the event loop; the others wait their turn in
 * arrival order. Why: under a flood (the bench's 50 clients pinging back to back) Node reads every
 * ready socket in one poll phase and runs each request's first steps there, so one turn ran 30 to
 * 50 pings (20-30 ms), and this process's own I/O that became ready meanwhile waited for all of
 * them: a store's answer to a relay's publish, a queue consumer's receive, the sweep's reads.
 * Starting new requests a few at a time from the check phase lets the loop poll between the
 * batches, so that I/O is read within a turn of a few ms. The work done is the same, so pings/s
 * are unchanged; measured with the bench, alternating, the relay's p99 fell from 33-40 to about
 * 20 ms (docs/adr/0005-local-queues-own-store.md). A lone request waits one turn (microseconds).
 */
export function admittingPerTurn<Env>(fetch: Fetch<Env>, perTurn = ADMIT_PER_TURN): Fetch<Env> {
  let waiting: (() => void)[] = [];
  let next = 0;
  let scheduled = false;
  const admit = () => {
    scheduled = false;
    const end = Math.min(next + perTurn, waiting.length);
    while (next < end) waiting[next++]?.();
    if (next === waiting.length || next >= 1024) {
      // Started entries are dropped: all of them, or (a queue that never empties) every 1,024.
      waiting = waiting.slice(next);
      next = 0;
    }
    if (waiting.length > 0) {
      scheduled = true;
      setImmediate(admit);
    }
  };
  return (request, env) =>
    new Promise<Response>((resolve, reject) => {
      waiting.push(() => {
        try {
          Promise.resolve(fetch(request, env)).then(resolve, reject);
        } catch (err) {
          reject(err);
        }
      });
      if (!scheduled) {
        scheduled = true;
        setImmediate(admit);
      }
    });
}

const PING_PREFIX = `${SIGNAL_APP_PREFIX}/`;
const HC_PING_PREFIX = '/api/ping/';

/**
 * The app `npm start` serves: token pings (`/api/signals/ping/...`) through the ping Lambda's small
 * app (core/signalApp.ts), as API Gateway routes them on AWS, and everything else through the whole
 * app. Both answer a ping through the same answerPing and ingestPing, and functions/signals.test.ts
 * holds their answers to each other; the whole app's router (hundreds of routes), its middleware
 * and its zod validation of the ping's path and query cost every steady ping about 25 us of CPU
 * that the small app does not (docs/adr/0011-one-update-per-ping.md). The install's ping counter
 * (core/metrics/routes.ts) counts these pings here, as the whole app counts the others.
 *
 * Healthchecks-compatible pings (`/api/ping/...`) go through an app of the same shell with only
 * their routes and the ping counter: the same answers as the whole app's (the same routes,
 * middleware and error handler), without its router. Through the whole app they were 0.82 times
 * as fast as the native pings once those left it (the bench's hc_to_native_ping_ratio, bound 0.9).
 */
export function localApp(deps: Deps): Fetch<unknown> {
  const app = createApp(deps);
  const pings = createSignalApp(deps);
  const hcPings = createAppShell(deps, (shell) => {
    // First, as in the whole app: its ping counter wraps the ping routes.
    shell.route('/', installMetricsRoutes());
    shell.route('/api/ping', hcPingRoutes());
  });
  const counted = installCounters(deps).pings;
  const count = (response: Response): Response => {
    counted[response.status < 400 ? 'accepted' : 'rejected']++;
    return response;
  };
  return (request, env) => {
    const url = request.url;
    // The path starts at the first slash after the scheme's `://`, as Hono finds it.
    const path = url.indexOf('/', url.indexOf(':') + 3);
    if (url.startsWith(HC_PING_PREFIX, path)) return hcPings.fetch(request, env);
    if (!url.startsWith(PING_PREFIX, path)) return app.fetch(request, env);
    const answer = pings.fetch(request, env);
    return answer instanceof Promise ? answer.then(count) : count(answer);
  };
}

/** The fetch handler `npm start` serves (the benches serve the same). */
export const localFetch = <Env>(fetch: Fetch<Env>): Fetch<Env> => admittingPerTurn(closingAfterOversized(fetch));

/** How long a stop lets in-flight requests finish before it closes their connections. */
const STOP_GRACE_MS = 10_000;

export type LocalServer = {
  /** `{base_url}`: `http://localhost:<port>/api`. */
  baseUrl: string;
  /** The WebSocket stream endpoint: `ws://localhost:<port>/api/ws`. */
  streamUrl: string;
  deps: LocalDeps;
  /** Stops taking requests, lets in-flight ones finish, delivers what is due, then closes the store. */
  stop(): Promise<void>;
};

/**
 * The embedded runtime behind `npm start`: the store (dynalite in this process, unless
 * VIGIL_DYNAMODB_ENDPOINT names another; ADR 12 says why) and the queue lanes' own store beside
 * it, the in-process adapters and workers, and one HTTP server for every surface, the built
 * dashboard (web/dist) included.
 */
export async function startLocalServer(
  config: Config,
  options: {
    log?: boolean;
    queueEndpoint?: string;
    /** How long a stop lets in-flight requests finish (tests shorten it). */
    stopGraceMs?: number;
    /** The store at `queueEndpoint` has no other receiver (the bench's store process); an embedded one never has. */
    ownsQueueStore?: boolean;
  } = {},
): Promise<LocalServer> {
  const { endpoint, store, queueStore } = await startStores(config, options.queueEndpoint);
  const queueEndpoint = options.queueEndpoint ?? queueStore?.endpoint;
  // The embedded store is this process's alone: no other runtime receives from the lanes in it.
  const ownsQueueStore = options.ownsQueueStore ?? (queueEndpoint === undefined ? store : queueStore) !== undefined;
  // An embedded store is this process's alone, so the alert deliveries a killed run had claimed are
  // orphans: their messages (reclaimed below) go out now, not after the claims' lease.
  const deps = await createLocalDeps({
    config,
    endpoint,
    autoDrain: true,
    logMail: options.log ?? true,
    ownsStore: store !== undefined,
    ownsQueueStore,
    ...(queueEndpoint === undefined ? {} : { queueEndpoint }),
  });
  const stopWorkers = startLocalWorkers(deps);
  // Also picks up what a previous run left in the store (pending, delayed, or in flight when it died).
  // The embedded store is this process's alone: leases found now belong to a process that died.
  if (ownsQueueStore) await deps.queue.reclaimLeases();
  deps.queue.start();
  const server = await new Promise<ServerType>((resolve) => {
    const started: ServerType = serve({ fetch: localFetch(withDashboard(localApp(deps))), port: config.port, hostname: '0.0.0.0' }, () => resolve(started));
  });
  const streams = attachLocalStreams(server, deps);
  const port = (server.address() as AddressInfo).port;
  let stopped: Promise<void> | undefined;
  return {
    baseUrl: `http://localhost:${port}/api`,
    streamUrl: `ws://localhost:${port}${LOCAL_STREAM_PATH}`,
    deps,
    stop: () =>
      (stopped ??= new Promise<void>((resolve, reject) => {
        // Each phase says when it is done, so a stop that hangs names the phase it hangs in.
        const began = performance.now();
        const done = (phase: string) => {
          if (options.log ?? true) console.log(`stop: ${phase} (${Math.round(performance.now() - began)} ms)`);
        };
        streams.close();
        server.close(() => {
          clearTimeout(grace);
          void (async () => {
            done('requests finished');
            await stopWorkers();
            done('sweep and probes stopped');
            await deps.queue.stop();
            done('due queue work delivered');
            await Promise.all([store?.close(), queueStore?.close()]);
            done('stores closed');
          })().then(resolve, reject);
        });
        // Idle keep-alive connections would hold close() open; in-flight requests still finish,
        // for a while: a client that keeps a connection busy past the grace must not hold the stop.
        (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
        const grace = setTimeout(() => {
          done('grace over: closing the connections still open');
          (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        }, options.stopGraceMs ?? STOP_GRACE_MS);
        grace.unref();
      })),
  };
}

/**
 * The embedded stores, in this process and on disk in the data directory: the main one, unless
 * VIGIL_DYNAMODB_ENDPOINT names another, and beside it the queue lanes' own (runtime.ts
 * `queueEndpoint` says why), unless the caller brings one. An outside endpoint keeps the lanes.
 * In this process, because the app's clients then hand them requests without a socket
 * (core/adapters/local/inProcessTransport.ts says what that saves); each still listens on a
 * loopback port for other tools.
 */
async function startStores(config: Config, queueEndpoint: string | undefined): Promise<{ endpoint: string; store?: EmbeddedStore; queueStore?: EmbeddedStore }> {
  if (config.dynamoEndpoint !== undefined) return { endpoint: config.dynamoEndpoint };
  const [store, queueStore] = await Promise.all([
    startEmbeddedStore(config.dataDir, 0),
    queueEndpoint === undefined ? startEmbeddedStore(queueDataDir(config.dataDir), 0) : undefined,
  ]);
  return queueStore ? { endpoint: store.endpoint, store, queueStore } : { endpoint: store.endpoint, store };
}
