import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../core/config.js';
import { startLocalServer } from '../core/localServer.js';

/**
 * `intake_to_first_alert_ms_p99`: an Alertmanager webhook notification (a new group each time)
 * posted to an integration's intake URL, through `npm start`'s server -> the step-0 webhook of
 * its incident received by a local receiver. Target: at most 500 ms.
 */
const NOTIFICATIONS = Number(process.env.BENCH_INTAKES ?? 100);
const WARM_UP = 5;

type Print = (name: string, value: number, digits?: number) => void;

const notification = (groupKey: string) => ({
  version: '4',
  groupKey,
  status: 'firing',
  receiver: 'vigil',
  groupLabels: { alertname: groupKey },
  commonLabels: { alertname: groupKey, severity: 'critical' },
  commonAnnotations: { summary: `bench ${groupKey}` },
  externalURL: 'http://alertmanager.bench:9093',
  alerts: [
    {
      status: 'firing',
      labels: { alertname: groupKey, severity: 'critical' },
      annotations: { summary: `bench ${groupKey}` },
      startsAt: new Date().toISOString(),
      endsAt: '0001-01-01T00:00:00Z',
      fingerprint: groupKey,
    },
  ],
});

export async function intakeBenchmark(endpoint: string, print: Print): Promise<void> {
  const received = new Map<number, number>();
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { type: string; data: { incident?: { id: number } } };
      if (parsed.type === 'incident.opened' && parsed.data.incident) received.set(parsed.data.incident.id, performance.now());
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const config = loadConfig({ PORT: '0', VIGIL_TABLE_NAME: 'bench_intake', VIGIL_DYNAMODB_ENDPOINT: endpoint, VIGIL_DATA_DIR: ':memory:', VIGIL_PROBE_ALLOW_PRIVATE: '1' });
  const server = await startLocalServer(config, { log: false });
  const api = server.baseUrl;
  const call = async <T>(method: string, path: string, token: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  try {
    const signup = await fetch(`${api}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `intake-${process.pid}@example.com`, password: 'benchmark password', name: 'bench' }),
    });
    const me = (await signup.json()) as { access_token: string; workspace: { id: number } };
    const token = me.access_token;
    const workspaceId = me.workspace.id;
    const channel = await call<{ id: number }>('POST', '/alert-channels', token, { workspaceId, name: 'receiver', type: 'WEBHOOK', config: { url: hook } });
    const integration = await call<{ id: number; secret: string }>('POST', '/integrations', token, { workspaceId, name: 'bench', kind: 'ALERTMANAGER' });
    await call('POST', '/escalation-policies', token, {
      workspaceId,
      name: 'bench',
      priority: 0,
      projectIds: [],
      integrationIds: [integration.id],
      steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId: channel.id }] }],
    });
    const intake = `${api}/integrations/intake/${integration.secret}`;
    const latencies: number[] = [];
    // The first notifications warm the process up (JIT, the receiver's connection); they are not counted.
    for (let i = 0; i < NOTIFICATIONS + WARM_UP; i++) {
      const started = performance.now();
      const res = await fetch(intake, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(notification(`bench-${process.pid}-${i}`)) });
      if (!res.ok) throw new Error(`intake: ${res.status} ${await res.text()}`);
      const [incidentId] = ((await res.json()) as { incidentIds: number[] }).incidentIds;
      if (incidentId === undefined) throw new Error('intake opened no incident');
      const deadline = started + 10_000;
      while (!received.has(incidentId) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
      if (i >= WARM_UP) latencies.push((received.get(incidentId) ?? Number.POSITIVE_INFINITY) - started);
    }
    latencies.sort((a, b) => a - b);
    print('intake_to_first_alert_ms_p50', latencies[Math.floor(latencies.length / 2)] ?? Number.NaN);
    print('intake_to_first_alert_ms_p99', latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * 0.99) - 1)] ?? Number.NaN);
    print('intake_notifications', latencies.length);
  } finally {
    await server.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}
