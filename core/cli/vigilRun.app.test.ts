import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { checkOf, createJob, signalsOf } from '../../test/support/signals.js';

const BIN = fileURLToPath(new URL('../../bin/vigil-run.mjs', import.meta.url));

// The wrapper against the real app over real HTTP (the test store behind it, the test clock).
let t: TestContext;
let server: ServerType;
let base: string;
let user: Awaited<ReturnType<TestContext['signup']>>;
let key: string;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('cron');
  key = await t.apiKey(user);
  server = await new Promise<ServerType>((resolve) => {
    const started: ServerType = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function runCli(url: string, script: string) {
  return runArgs(['--url', url, '--', 'sh', '-c', script]);
}

/** The shipped bin as cron runs it; VIGIL_PING_URL only when given. */
function runArgs(args: string[], env: Record<string, string> = {}) {
  const inherited = { ...process.env };
  delete inherited.VIGIL_PING_URL;
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...inherited, ...env } });
  let stderr = '';
  let stdoutBytes = 0;
  child.stdout.on('data', (chunk: Buffer) => (stdoutBytes += chunk.byteLength));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise<{ code: number | null; stderr: string; stdoutBytes: number }>((resolve) => child.on('close', (code) => resolve({ code, stderr, stdoutBytes })));
}

const reportsOf = (checkId: number) =>
  (t.deps.queue.peek('incidents') as { type: string; checkId?: number; dependencies?: unknown }[]).filter((m) => m.type === 'dependencies.reported' && m.checkId === checkId);

describe('vigil-run against Vigil', () => {
  it('records START then SUCCESS with the output as the body', async () => {
    const job = await createJob(t, user, key);
    const result = await runCli(`${base}/signals/ping/${job.token}`, 'echo backup done');
    expect(result.code).toBe(0);
    const signals = await signalsOf(t, job.id);
    // Both arrive within one instant of the test clock, so their order in the partition is the ids'.
    expect(signals.map((s) => s.type).sort()).toEqual(['START', 'SUCCESS']);
    expect(signals.find((s) => s.type === 'SUCCESS')?.payload).toBe('backup done\n');
    expect((await checkOf(t, job.token)).status).toBe('OK');
  });

  it('reports exit code 3 on the exit-code path: Vigil stores 3, the caller gets 3', async () => {
    const job = await createJob(t, user, key);
    const result = await runCli(`${base}/signals/ping/${job.token}`, 'echo disk full >&2; exit 3');
    expect(result.code).toBe(3);
    expect(result.stderr).toBe('disk full\n');
    const signals = await signalsOf(t, job.id);
    expect(signals.map((s) => s.type).sort()).toEqual(['FAIL', 'START']);
    const fail = signals.find((s) => s.type === 'FAIL');
    expect(fail?.payload).toBe('disk full\n');
    // The run id pairs the two: the FAIL names the same run as the START.
    const start = signals.find((s) => s.type === 'START');
    expect(fail?.details).toMatchObject({ exitCode: 3, rid: (start?.details as { rid: string }).rid });
    expect((await checkOf(t, job.token)).status).toBe('DOWN');
  });

  it('sends the last 10,240 bytes of binary output as they are: the end ping is taken, not refused with 413', async () => {
    const job = await createJob(t, user, key);
    // 30,000 bytes of 0xFF: decoded as UTF-8 each would be a 3-byte replacement character.
    const result = await runCli(`${base}/signals/ping/${job.token}`, "head -c 30000 /dev/zero | tr '\\000' '\\377'");
    expect(result.code).toBe(0);
    expect(result.stdoutBytes).toBe(30_000);
    expect(result.stderr).toBe('');
    const success = (await signalsOf(t, job.id)).find((s) => s.type === 'SUCCESS');
    expect(success?.payload?.length).toBe(10_240);
  });

  it('prefers VIGIL_PING_URL over --url, says so once, and keeps the variable from the command', async () => {
    const fromEnv = await createJob(t, user, key);
    const fromArgv = await createJob(t, user, key);
    const result = await runArgs(['--url', `${base}/signals/ping/${fromArgv.token}`, '--', 'sh', '-c', 'echo "[${VIGIL_PING_URL-unset}]"'], {
      VIGIL_PING_URL: `${base}/signals/ping/${fromEnv.token}`,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('vigil-run: both VIGIL_PING_URL and --url are set; pinging the one in VIGIL_PING_URL\n');
    expect(result.stderr).not.toContain(fromEnv.token);
    const signals = await signalsOf(t, fromEnv.id);
    expect(signals.map((s) => s.type).sort()).toEqual(['START', 'SUCCESS']);
    expect(signals.find((s) => s.type === 'SUCCESS')?.payload).toBe('[unset]\n');
    expect(await signalsOf(t, fromArgv.id)).toEqual([]);
  });

  it('redacts the ping key of a deprecated /signals/p/<key>/<slug> URL in its warning', async () => {
    const result = await runCli(`${base}/signals/p/pk_SECRETKEY1234567890/nightly-backup`, 'exit 0');
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^vigil-run: http:\/\/127\.0\.0\.1:\d+\/api\/signals\/p\/…\/nightly-backup\/start answered HTTP 4\d\d\n$/);
    expect(result.stderr).not.toContain('SECRETKEY');
  });

  it('reads a dependency report from the output only with --report-dependencies', async () => {
    const report = '{"dependencies":[{"name":"warehouse-db","status":"down"}]}';
    const plain = await createJob(t, user, key);
    expect((await runCli(`${base}/signals/ping/${plain.token}`, `echo '${report}'`)).code).toBe(0);
    expect(reportsOf(plain.id)).toEqual([]);
    const stored = (await signalsOf(t, plain.id)).find((s) => s.type === 'SUCCESS');
    expect(stored?.payload).toContain(report);
    expect(stored?.payloadIsJson).toBe(false);

    const asked = await createJob(t, user, key);
    const result = await runArgs(['--report-dependencies', '--url', `${base}/signals/ping/${asked.token}`, '--', 'sh', '-c', `echo loading; echo '${report}'; echo done`]);
    expect(result.code).toBe(0);
    expect(reportsOf(asked.id).map((m) => m.dependencies)).toEqual([[{ name: 'warehouse-db', status: 'down' }]]);
    const sent = (await signalsOf(t, asked.id)).find((s) => s.type === 'SUCCESS');
    expect(JSON.parse(sent?.payload ?? '{}')).toEqual({ dependencies: [{ name: 'warehouse-db', status: 'down' }], output: `loading\n${report}\ndone\n` });
  });

  it('warns once about an unknown token and keeps the exit code', async () => {
    const result = await runCli(`${base}/signals/ping/no-such-token`, 'exit 0');
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^vigil-run: http:\/\/127\.0\.0\.1:\d+\/api\/signals\/ping\/…\/start answered HTTP 404\n$/);
  });
});
