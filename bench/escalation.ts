import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sweepEscalations } from '../core/escalation/sweep.js';
import { loadConfig } from '../core/config.js';
import { startLocalServer } from '../core/localServer.js';
import { createLocalDeps } from '../core/runtime.js';
import type { IncidentItem } from '../core/store/entities/incident.js';
import { dueFields } from '../core/store/escalationDue.js';
import type { Store } from '../core/store/service.js';

/**
 * The escalation engine's two figures:
 * - `escalation_sweep_items_read_per_due_step`: 10,000 open incidents routed by a three-step
 *   policy, 1% of them due for step 1; items one escalation sweep reads per step it fires.
 * - `first_alert_ms_p99`: a check flips DOWN (`/fail`, through `npm start`'s server) -> its
 *   incident's step-0 webhook received by a local receiver.
 */
const OPEN_INCIDENTS = 10_000;
const DUE_SHARE = 0.01;
const FLIPS = Number(process.env.BENCH_FLIPS ?? 100);
const WARM_UP = 5;

type Meter = (store: Pick<Store, 'client' | 'hot'>) => { on: boolean; requests: number; itemsRead: number };
type Print = (name: string, value: number, digits?: number) => void;

const STEPS = (channelId: number) =>
  JSON.stringify([0, 10, 30].map((delayMinutes, position) => ({ position, delayMinutes, targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId: channelId }] })));

async function sweepFigure(endpoint: string, meter: Meter, print: Print): Promise<void> {
  const deps = await createLocalDeps({ config: loadConfig({ VIGIL_TABLE_NAME: 'bench_escalation' }), endpoint, autoDrain: false });
  const now = deps.clock.now();
  const iso = now.toISOString();
  const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
  await deps.store.entities.escalationPolicy
    .create({
      policyId: 1,
      workspaceId: 1,
      name: 'bench',
      priority: 0,
      catchAll: true,
      repeatCount: 0,
      enabled: true,
      stepsJson: STEPS(1),
      revision: 1,
      createdAt: iso,
      updatedAt: iso,
    })
    .go();
  const due = Math.round(OPEN_INCIDENTS * DUE_SHARE);
  const items: IncidentItem[] = [];
  for (let i = 0; i < OPEN_INCIDENTS; i++) {
    const incidentId = i + 1;
    // Step 0 went out with the opening; step 1 is due 10 minutes after it. 1% opened 11 minutes ago.
    const openedAt = i < due ? minutesAgo(11) : new Date(now.getTime() - (i % 9) * 60_000);
    items.push({
      incidentId,
      publicId: `bench${incidentId}`,
      workspaceId: 1,
      projectId: 1,
      title: `bench ${incidentId}`,
      state: 'ACTIVE',
      reason: 'SERVICE_DOWN',
      severity: 'P1',
      startedAt: openedAt.toISOString(),
      declared: true,
      revision: 2,
      escalationEpoch: 0,
      escalationCycle: 0,
      escalationStep: 1,
      escalationAnchor: openedAt.toISOString(),
      escalationHeld: false,
      escalationAfterAck: false,
      ...dueFields(incidentId, new Date(openedAt.getTime() + 10 * 60_000)),
      createdAt: iso,
      updatedAt: iso,
    });
  }
  for (let i = 0; i < items.length; i += 500) await deps.store.entities.incident.put(items.slice(i, i + 500)).go();
  const store = meter(deps.store);
  store.on = true;
  const started = performance.now();
  const report = await sweepEscalations(deps, now);
  const ms = performance.now() - started;
  store.on = false;
  print('escalation_sweep_items_read_per_due_step', store.itemsRead / Math.max(1, report.fired));
  print('escalation_sweep_due_steps', report.fired);
  print('escalation_sweep_ms', ms, 0);
}

async function firstAlertFigure(endpoint: string, print: Print): Promise<void> {
  const received = new Map<string, number>();
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { type: string; data: { check: { id: number } | null } };
      if (parsed.type === 'incident.opened' && parsed.data.check) received.set(String(parsed.data.check.id), performance.now());
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const config = loadConfig({ PORT: '0', VIGIL_TABLE_NAME: 'bench_first_alert', VIGIL_DYNAMODB_ENDPOINT: endpoint, VIGIL_DATA_DIR: ':memory:', VIGIL_PROBE_ALLOW_PRIVATE: '1' });
  const server = await startLocalServer(config, { log: false });
  const api = server.baseUrl;
  const call = async <T>(method: string, path: string, token: string, body?: unknown): Promise<T> => {
    const send = () =>
      fetch(`${api}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    let res = await send();
    // A quick machine creates the jobs faster than a key's 100 requests a minute: wait as told (outside the timed span).
    while (res.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, 1000 * Number(res.headers.get('retry-after') ?? '1')));
      res = await send();
    }
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  try {
    const signup = await fetch(`${api}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `first-alert-${process.pid}@example.com`, password: 'benchmark password', name: 'bench' }),
    });
    const me = (await signup.json()) as { access_token: string; workspace: { id: number } };
    const token = me.access_token;
    const workspaceId = me.workspace.id;
    const [project] = await call<{ id: number }[]>('GET', `/projects?workspaceId=${workspaceId}`, token);
    const key = (await call<{ key: string }>('POST', '/api-keys', token, { workspaceId, name: 'bench', permission: 'read_write', kind: 'service' })).key;
    const channel = await call<{ id: number }>('POST', '/alert-channels', token, { workspaceId, name: 'receiver', type: 'WEBHOOK', config: { url: hook } });
    await call('POST', '/escalation-policies', token, {
      workspaceId,
      name: 'bench',
      priority: 0,
      projectIds: null,
      steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId: channel.id }] }],
    });
    const latencies: number[] = [];
    // The first flips warm the process up (JIT, the receiver's connection); they are not counted.
    for (let i = 0; i < FLIPS + WARM_UP; i++) {
      const job = await call<{ id: number; token: string }>('POST', '/v1/jobs', key, { name: `flip ${i}`, projectId: project?.id, intervalSeconds: 3600, graceSeconds: 300 });
      await fetch(`${api.replace(/\/api$/, '')}/api/signals/ping/${job.token}`);
      const started = performance.now();
      await fetch(`${api.replace(/\/api$/, '')}/api/signals/ping/${job.token}/fail`);
      const deadline = started + 10_000;
      while (!received.has(String(job.id)) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
      if (i >= WARM_UP) latencies.push((received.get(String(job.id)) ?? Number.POSITIVE_INFINITY) - started);
    }
    latencies.sort((a, b) => a - b);
    print('first_alert_ms_p50', latencies[Math.floor(latencies.length / 2)] ?? Number.NaN);
    print('first_alert_ms_p99', latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * 0.99) - 1)] ?? Number.NaN);
    print('first_alert_flips', latencies.length);
    print('first_alert_ms_max', latencies.at(-1) ?? Number.NaN);
  } finally {
    await server.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

export async function escalationBenchmark(endpoint: string, meter: Meter, print: Print): Promise<void> {
  if (process.env.BENCH_ESCALATION !== 'first-alert') await sweepFigure(endpoint, meter, print);
  await firstAlertFigure(endpoint, print);
}
