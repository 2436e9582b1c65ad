import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Pool } from 'undici';
import { createApp } from '../core/app.js';
import { loadConfig } from '../core/config.js';
import { createLocalDeps } from '../core/runtime.js';
import { refreshSnapshot } from '../core/statuspages/store/snapshot.js';
import { DAY_MS, utcDate } from '../core/statuspages/uptime.js';
import { forgetPage } from '../core/statuspages/store/viewCache.js';
import { seedChecks } from './seed.js';

const COMPONENTS = 20;
const DAYS = 90;
const JSON_VIEWS = 200;

type Meter = { on: boolean; requests: number };
type Print = (name: string, value: number, digits?: number) => void;

async function call<T>(origin: string, method: string, path: string, token: string | null, body?: unknown): Promise<T> {
  const res = await fetch(`${origin}/api${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** `clients` keep-alive clients GETting `path` until `seconds` have passed; counts 200s. */
async function drive(origin: string, path: string, clients: number, seconds: number): Promise<{ ok: number; failed: number; seconds: number }> {
  const pool = new Pool(origin, { connections: clients, pipelining: 1 });
  let ok = 0;
  let failed = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const res = await pool.request({ path, method: 'GET' });
        await res.body.dump();
        if (res.statusCode === 200) ok++;
        else failed++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  return { ok, failed, seconds: elapsed };
}

/**
 * A public status page of 20 check components with 90-day bars: store requests per public JSON
 * view (the snapshot makes it a handful, whatever the components), and HTML views per second
 * with 50 clients (the public limit raised through VIGIL_PUBLIC_STATUS_RATE_LIMIT).
 */
export async function statusPageBenchmark(endpoint: string, meter: (store: Parameters<typeof refreshSnapshot>[0]['store']) => Meter, print: Print): Promise<void> {
  const config = loadConfig({ VIGIL_TABLE_NAME: 'bench_status', VIGIL_PUBLIC_STATUS_RATE_LIMIT: '10000000' });
  const deps = await createLocalDeps({ config, endpoint, autoDrain: true });
  const store = meter(deps.store);
  const server = serve({ fetch: createApp(deps).fetch, hostname: '127.0.0.1', port: 0 });
  if (!server.listening) await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const signup = await call<{ access_token: string; workspace: { id: number } }>(origin, 'POST', '/auth/signup', null, {
      email: `bench-status-${process.pid}@example.com`,
      password: 'benchmark password',
      name: 'bench',
    });
    const token = signup.access_token;
    const [project] = await call<{ id: number }[]>(origin, 'GET', `/projects?workspaceId=${signup.workspace.id}`, token);
    if (!project) throw new Error('sign-up made no project');
    const page = await call<{ id: number; slug: string }>(origin, 'POST', '/status-pages', token, { name: 'Bench status', slug: `bench-${process.pid}`, uptimeHistoryDays: DAYS });
    const now = deps.clock.now();
    const checks = await seedChecks(deps, { workspaceId: signup.workspace.id, projectId: project.id }, COMPONENTS, () => ({ status: 'OK' }));
    const today = Math.floor(now.getTime() / DAY_MS);
    for (const [i, check] of checks.entries()) {
      await call(origin, 'POST', `/status-pages/${page.id}/components`, token, { name: `Service ${i + 1}`, checkId: check.checkId, groupName: i < 10 ? 'Core' : 'Edge' });
      const days = Array.from({ length: DAYS }, (_, d) => ({
        checkId: check.checkId,
        date: utcDate((today - DAYS + d) * DAY_MS),
        observedSeconds: 86_400,
        downSeconds: (d + i) % 13 === 0 ? 600 : 0,
        maintenanceSeconds: 0,
        maintenanceDownSeconds: 0,
      }));
      await deps.store.entities.uptimeRollup.put(days).go();
    }
    await refreshSnapshot(deps, page.id);

    const jsonViews = async (cold: boolean): Promise<number> => {
      store.requests = 0;
      for (let i = 0; i < JSON_VIEWS; i++) {
        // Cold: as a process that has not seen the page in the last seconds (every AWS container's first view).
        if (cold) forgetPage(deps.store, page.id);
        store.on = true;
        const res = await fetch(`${origin}/api/public/status/${page.slug}`);
        if (res.status !== 200) throw new Error(`public view: ${res.status}`);
        await res.arrayBuffer();
        store.on = false;
      }
      return store.requests / JSON_VIEWS;
    };
    print('status_page_ddb_requests_per_view', await jsonViews(true));
    print('status_page_ddb_requests_per_cached_view', await jsonViews(false));

    await drive(origin, `/status/${page.slug}`, 10, 1);
    const load = await drive(origin, `/status/${page.slug}`, 50, Number(process.env.BENCH_STATUS_SECONDS ?? 8));
    if (load.failed > 0) throw new Error(`${load.failed} status page views failed`);
    print('status_page_views_per_second', load.ok / load.seconds, 0);
  } finally {
    server.close();
  }
}
