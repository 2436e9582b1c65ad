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
  const child = spawn(process.execPath, [BIN, '--url', url, '--', 'sh', '-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

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

  it('warns once about an unknown token and keeps the exit code', async () => {
    const result = await runCli(`${base}/signals/ping/no-such-token`, 'exit 0');
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^vigil-run: http:\/\/127\.0\.0\.1:\d+\/api\/signals\/ping\/…\/start answered HTTP 404\n$/);
  });
});
