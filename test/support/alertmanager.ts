import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Debian's Prometheus Alertmanager (`apt-get install prometheus-alertmanager`), started by a test
 * on loopback with a generated config; `VIGIL_ALERTMANAGER` picks another binary. Without one the
 * tests skip with a message rather than fail.
 */
export const ALERTMANAGER = process.env.VIGIL_ALERTMANAGER ?? '/usr/bin/prometheus-alertmanager';
export const hasAlertmanager = existsSync(ALERTMANAGER);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Calls `probe` until it returns a value, waiting `everyMs` between tries, and fails past `deadlineMs`. */
export async function pollUntil<T>(what: string, probe: () => Promise<T | undefined>, deadlineMs = 20_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export type RunningAlertmanager = { url: string; output: () => string; stop(): Promise<void> };

/**
 * One Alertmanager whose only route sends every group to `webhookUrl` (resolved ones too), with
 * timings short enough for a test: groups go out 200 ms after their first alert, and a firing group
 * is sent again every second (repeat_interval), which is how the test sees a re-sent group.
 * Clustering is off; its data lives in a temporary directory removed by `stop`.
 */
export async function startAlertmanager(webhookUrl: string): Promise<RunningAlertmanager> {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-am-'));
  const config = [
    'route:',
    '  receiver: vigil',
    "  group_by: ['alertname']",
    '  group_wait: 200ms',
    '  group_interval: 500ms',
    '  repeat_interval: 1s',
    'receivers:',
    '  - name: vigil',
    '    webhook_configs:',
    `      - url: '${webhookUrl}'`,
    '        send_resolved: true',
    '',
  ].join('\n');
  await writeFile(join(dir, 'alertmanager.yml'), config);
  const port = await freePort();
  let output = '';
  const child: ChildProcess = spawn(
    ALERTMANAGER,
    [
      `--config.file=${join(dir, 'alertmanager.yml')}`,
      `--storage.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await pollUntil('Alertmanager to be ready', async () => {
      if (child.exitCode !== null) throw new Error(`Alertmanager exited (${child.exitCode}): ${output}`);
      return (await fetch(`${url}/-/ready`)).ok ? true : undefined;
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, output: () => output, stop };
}

/** Fires (or, with `endsAt`, resolves) alerts through Alertmanager's own API, as Prometheus does. */
export async function postAlerts(am: RunningAlertmanager, alerts: { labels: Record<string, string>; annotations?: Record<string, string>; startsAt?: string; endsAt?: string }[]) {
  const res = await fetch(`${am.url}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(alerts) });
  if (!res.ok) throw new Error(`Alertmanager refused the alerts: ${res.status} ${await res.text()}`);
}
