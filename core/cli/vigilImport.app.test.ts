import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { KUMA_PUSH_TOKEN, kumaDatabase } from '../../test/support/kuma.js';

const BIN = fileURLToPath(new URL('../../bin/vigil.mjs', import.meta.url));
const HEALTHCHECKS = fileURLToPath(new URL('../../test/fixtures/healthchecks-v3.json', import.meta.url));

// The shipped `vigil` bin against the real app over real HTTP (the test store behind it).
let t: TestContext;
let server: ServerType;
let base: string;
let user: Awaited<ReturnType<TestContext['signup']>>;
let key: string;
let kumaFile: string;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('cli');
  key = await t.apiKey(user);
  server = await new Promise<ServerType>((resolve) => {
    const started: ServerType = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  kumaFile = join(mkdtempSync(join(tmpdir(), 'vigil-kuma-')), 'kuma.db');
  writeFileSync(kumaFile, await kumaDatabase());
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function vigil(args: string[], env: Record<string, string> = { VIGIL_API_URL: base, VIGIL_API_KEY: key }) {
  const inherited = { ...process.env };
  delete inherited.VIGIL_API_URL;
  delete inherited.VIGIL_API_KEY;
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...inherited, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const jobCount = async () => (await t.request<{ total: number }>('GET', '/v1/jobs', { token: key })).body.total;

// Each case starts the bin through tsx a few times: seconds each on a loaded machine.
describe('vigil import against Vigil', { timeout: 240_000 }, () => {
  it('imports a Healthchecks export: --dry-run changes nothing, the run creates, a second run finds everything unchanged', async () => {
    const dry = await vigil(['import', 'healthchecks', HEALTHCHECKS, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('Healthchecks import (dry run: nothing was changed)');
    expect(dry.stdout).toContain('would create (3):\n  + job "Filesystem Backup"\n');
    expect(dry.stdout).toMatch(/- job "Monthly Invoices": .*intervalSeconds/);
    expect(await jobCount()).toBe(0);

    const real = await vigil(['import', 'healthchecks', HEALTHCHECKS]);
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toMatch(/created \(3\):\n {2}\+ job "Filesystem Backup" #\d+/);
    expect(await jobCount()).toBe(3);

    const again = await vigil(['import', 'healthchecks', HEALTHCHECKS, '--json']);
    expect(again.code, again.stderr).toBe(0);
    const report = JSON.parse(again.stdout) as { created: unknown[]; unchanged: unknown[] };
    expect(report.created).toEqual([]);
    expect(report.unchanged).toHaveLength(3);
    expect(await jobCount()).toBe(3);
  });

  it('reads an Uptime Kuma database here and sends its monitors; the push path then answers like Kuma', async () => {
    const res = await vigil(['import', 'uptime-kuma', kumaFile, '--project', String(user.projectId)]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('+ job "Nightly backup"');
    expect(res.stdout).toContain('+ check "Website"');
    expect(res.stdout).toContain('- monitor "Router": Vigil has no ping monitors');
    const push = await fetch(`${base}/push/${KUMA_PUSH_TOKEN}?status=up&msg=OK`);
    expect(await push.json()).toEqual({ ok: true });
  });

  it('exits 2 with the usage for a bad command line, 1 with Vigil’s message when it refuses', async () => {
    const noEnv = await vigil(['import', 'healthchecks', HEALTHCHECKS], {});
    expect(noEnv.code).toBe(2);
    expect(noEnv.stderr).toContain('VIGIL_API_URL');
    const badSource = await vigil(['import', 'nagios', HEALTHCHECKS]);
    expect(badSource.code).toBe(2);
    expect(badSource.stderr).toContain('healthchecks, uptime-kuma, grafana-oncall');
    const badKey = await vigil(['import', 'healthchecks', HEALTHCHECKS], { VIGIL_API_URL: base, VIGIL_API_KEY: 'vk_wrong' });
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toMatch(/^vigil import: 401: /);
    const notJson = await vigil(['import', 'healthchecks', kumaFile]);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toContain(`cannot read ${kumaFile}`);
  });
});
