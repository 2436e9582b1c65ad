import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { serve } from '@hono/node-server';
import { Pool } from 'undici';
import { WebSocket } from 'ws';
import { startEmbeddedStore } from '../core/adapters/local/embeddedStore.js';
import { createApp } from '../core/app.js';
import { signup } from '../core/auth/sessions.js';
import { loadConfig } from '../core/config.js';
import { createLocalDeps } from '../core/runtime.js';
import { attachLocalStreams, LOCAL_STREAM_PATH } from '../core/streams/local.js';
import { percentile } from './load.js';
import { seedChecks } from './seed.js';

/**
 * `broadcast_ms_p99`: from sending a ping to a subscribed WebSocket client receiving its `signal`
 * event, with 500 local clients across 50 workspaces (10 per workspace, each hearing only its own
 * workspace). Every check is pinged once (no dedup window in the way), a few pings in flight, and
 * each ping is measured at each of its workspace's 10 clients.
 */
const WORKSPACES = 50;
const CLIENTS_PER_WORKSPACE = 10;
const CHECKS_PER_WORKSPACE = 4;
const PINGS_IN_FLIGHT = 5;
/** The bound on any one wait, so a lost message fails the bench instead of hanging it. */
const WAIT_MS = 5_000;

type Workspace = { accessToken: string; checks: { checkId: number; token: string }[]; clients: WebSocket[] };

export async function streamBenchmark(endpoint: string): Promise<{ p50: number; p99: number; samples: number }> {
  const deps = await createLocalDeps({ config: loadConfig({ VIGIL_TABLE_NAME: 'bench_streams' }), endpoint, autoDrain: true });
  const server = serve({ fetch: createApp(deps).fetch, hostname: '127.0.0.1', port: 0 });
  if (!server.listening) await once(server, 'listening');
  const streams = attachLocalStreams(server, deps);
  const { port } = server.address() as AddressInfo;
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: PINGS_IN_FLIGHT, pipelining: 1 });
  try {
    const workspaces: Workspace[] = [];
    for (let w = 0; w < WORKSPACES; w++) {
      const made = await signup(deps, { email: `bench-stream-${process.pid}-${w}@example.com`, password: 'benchmark password' });
      const project = (await deps.store.entities.project.query.byWorkspace({ workspaceId: made.workspace.workspaceId }).go()).data[0];
      if (!project) throw new Error('sign-up made no project');
      const checks = await seedChecks(deps, { workspaceId: made.workspace.workspaceId, projectId: project.projectId }, CHECKS_PER_WORKSPACE, () => ({}));
      workspaces.push({ accessToken: made.access_token, checks: checks.map(({ checkId, token }) => ({ checkId, token })), clients: [] });
    }

    /** Arrival times of each check's signal event, per client. */
    const waiting = new Map<number, { remaining: number; sentAt: number; latencies: number[]; done: () => void }>();
    const url = `ws://127.0.0.1:${port}${LOCAL_STREAM_PATH}`;
    // One workspace's clients at a time: connecting is setup, not what is measured. Each
    // workspace's 10 clients come from their own loopback address (127.0.0.0/8 is all loopback on
    // Linux), as 50 viewers would: one address may hold 20 open streams (core/http/streamLimits.ts).
    for (const [w, workspace] of workspaces.entries()) {
      await Promise.all(
        Array.from({ length: CLIENTS_PER_WORKSPACE }, async () => {
          const ws = new WebSocket(`${url}?stream=signals&access_token=${workspace.accessToken}`, { localAddress: `127.0.1.${w + 1}` });
          ws.on('message', (data) => {
            const receivedAt = performance.now();
            const message = JSON.parse(String(data)) as { event: string; data: { checkId: number } };
            const entry = message.event === 'signal' ? waiting.get(message.data.checkId) : undefined;
            if (!entry) return;
            entry.latencies.push(receivedAt - entry.sentAt);
            if (--entry.remaining === 0) entry.done();
          });
          await bounded(once(ws, 'open'), 'connect', 30_000);
          workspace.clients.push(ws);
        }),
      );
    }

    const latencies: number[] = [];
    const pings = workspaces.flatMap((workspace, w) => workspace.checks.map((check, c) => ({ check, order: c * WORKSPACES + w }))).sort((a, b) => a.order - b.order);
    let next = 0;
    const driver = async () => {
      while (next < pings.length) {
        const { check } = pings[next++] as (typeof pings)[number];
        const received = new Promise<void>((done) => {
          waiting.set(check.checkId, { remaining: CLIENTS_PER_WORKSPACE, sentAt: performance.now(), latencies, done });
        });
        const res = await pool.request({ path: `/api/signals/ping/${check.token}`, method: 'GET' });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`ping answered ${res.statusCode}`);
        await bounded(received, `signal of check ${check.checkId}`);
        waiting.delete(check.checkId);
      }
    };
    await Promise.all(Array.from({ length: PINGS_IN_FLIGHT }, driver));
    const sorted = Float64Array.from(latencies).sort();
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), samples: sorted.length };
  } finally {
    streams.close();
    await pool.close();
    server.close();
    await deps.queue.stop();
  }
}

function bounded<T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`bench: no ${what} within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** `node --import tsx bench/streams.ts`: this section alone, on its own embedded store. */
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const store = await startEmbeddedStore(':memory:', 0, { isolate: 'child' });
  try {
    const result = await streamBenchmark(store.endpoint);
    console.log(`broadcast_ms_p50: ${result.p50.toFixed(2)}`);
    console.log(`broadcast_ms_p99: ${result.p99.toFixed(2)}`);
    console.log(`broadcast_samples: ${result.samples}`);
  } finally {
    await store.close();
  }
}
