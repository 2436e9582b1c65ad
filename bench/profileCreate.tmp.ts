import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedStore } from '../core/adapters/local/embeddedStore.js';
import { loadConfig } from '../core/config.js';
import { startLocalServer } from '../core/localServer.js';
import { createHeartbeatJob } from '../core/checks/v1.js';
import { createProject } from '../core/identity/projects.js';
import { createWorkspace } from '../core/identity/workspaces.js';
import { listDashboardChecks } from '../core/checks/dashboard.js';
import { readRuns } from '../core/store/listRank.js';

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-prof-'));
const store = await startEmbeddedStore(dataDir, 0, { isolate: 'child' });
const server = await startLocalServer(loadConfig({ PORT: '0', VIGIL_TABLE_NAME: 'prof', VIGIL_DYNAMODB_ENDPOINT: store.endpoint, VIGIL_DATA_DIR: dataDir }), { log: false });
const deps = server.deps;
const log: string[] = [];
let on = false;
deps.store.client.middlewareStack.add((next, context) => async (args) => {
  const t0 = performance.now();
  const r = await next(args);
  if (on) {
    const input = args.input as { Key?: unknown; KeyConditionExpression?: string; IndexName?: string; Item?: { pk?: string } };
    const out = r.output as { ScannedCount?: number; Count?: number };
    log.push(`${(performance.now() - t0).toFixed(1)}ms ${context.commandName} ${JSON.stringify(input.Key ?? input.Item?.pk ?? input.IndexName ?? '').slice(0, 70)} scanned=${out.ScannedCount ?? ''}`);
  }
  return r;
}, { step: 'initialize', name: 'prof' });
const origin = server.baseUrl.replace(/\/api$/, '');
const signup = await fetch(`${origin}/api/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'p@example.com', password: 'benchmark password', name: 'p' }) });
const created = (await signup.json()) as { user: { id: number; email: string } };
const ctx = { deps, actor: { kind: 'user' as const, userId: created.user.id, email: created.user.email } };
const ws = await createWorkspace(ctx, { name: 'x' });
const { projectId } = await createProject(ctx, { workspaceId: ws.id, name: 'x' });
const N = Number(process.env.N ?? 200);
const times: number[] = [];
for (let i = 0; i < N; i++) {
  const t0 = performance.now();
  await createHeartbeatJob(ctx, { name: `c${i}`, projectId, intervalSeconds: 3600 });
  times.push(performance.now() - t0);
}
on = true;
const t0 = performance.now();
await createHeartbeatJob(ctx, { name: 'one', projectId, intervalSeconds: 3600 });
console.log('one create', (performance.now() - t0).toFixed(1));
console.log(log.join('\n'));
log.length = 0;
const t1 = performance.now();
const l = await listDashboardChecks(ctx, { workspaceId: ws.id, page: Math.ceil(N / 20), limit: 10 });
console.log('one list', (performance.now() - t1).toFixed(1), l.total, l.items.length);
console.log(log.join('\n'));
on = false;
const lt: number[] = [];
for (let i = 0; i < 100; i++) {
  const t2 = performance.now();
  await listDashboardChecks(ctx, { workspaceId: ws.id, page: 1 + ((i * 7919) % Math.ceil(N / 10)), limit: 10 });
  lt.push(performance.now() - t2);
}
lt.sort((a, b) => a - b);
console.log('list p50', lt[50]?.toFixed(1), 'p99', lt[98]?.toFixed(1));
{
  const page = await listDashboardChecks(ctx, { workspaceId: ws.id, page: 3, limit: 10 });
  const tokens = page.items.map((c) => ({ token: c.token }));
  const a: number[] = [], b: number[] = [], c: number[] = [];
  for (let i = 0; i < 60; i++) {
    let t3 = performance.now();
    await deps.store.entities.check.get(tokens).go({ consistent: true });
    a.push(performance.now() - t3);
    t3 = performance.now();
    await Promise.all(tokens.map((k) => deps.store.entities.check.get(k).go({ consistent: true })));
    b.push(performance.now() - t3);
    t3 = performance.now();
    await readRuns(deps.store, `check#workspace#${ws.id}`);
    c.push(performance.now() - t3);
  }
  for (const [n, x] of [['batch', a], ['gets', b], ['runs', c]] as const) { x.sort((p, q) => p - q); console.log(n, 'p50', x[30]?.toFixed(1), 'p90', x[54]?.toFixed(1)); }
}
times.sort((a, b) => a - b);
console.log('create p50', times[Math.floor(N / 2)]?.toFixed(1), 'p99', times[Math.floor(N * 0.99)]?.toFixed(1));
await server.stop();
await store.close();
