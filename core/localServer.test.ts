import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { startLocalServer } from './localServer.js';

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-local-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const config = () => loadConfig({ PORT: '0', VIGIL_DATA_DIR: dataDir, VIGIL_SWEEP_SECONDS: '3600' });

async function post(url: string, body: unknown, token?: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('the embedded runtime (npm start)', () => {
  it('serves over real HTTP, stops cleanly, and keeps its data across a restart', async () => {
    const first = await startLocalServer(config(), { log: false });
    expect(await (await fetch(`${first.baseUrl}/health`)).json()).toEqual({ status: 'ok' });
    const signup = await post(`${first.baseUrl}/auth/signup`, { email: 'keep@example.com', password: 'correct horse battery' });
    expect(signup.status).toBe(201);
    const job = await post(`${first.baseUrl}/checks`, { name: 'nightly', projectId: 1, intervalSeconds: 300, graceSeconds: 60 }, String(signup.body.access_token));
    expect(job.status).toBe(201);
    const ping = await fetch(`${first.baseUrl}/signals/ping/${String(job.body.token)}`);
    expect(ping.status).toBe(200);
    await first.stop();
    await expect(fetch(`${first.baseUrl}/health`)).rejects.toThrow();

    const second = await startLocalServer(config(), { log: false });
    try {
      const login = await post(`${second.baseUrl}/oauth/token`, { grant_type: 'password', username: 'keep@example.com', password: 'correct horse battery' });
      expect(login.status).toBe(200);
      const check = await fetch(`${second.baseUrl}/checks/${String(job.body.id)}`, { headers: { authorization: `Bearer ${String(login.body.access_token)}` } });
      const body = (await check.json()) as { status: string; lastPingAt: string | null };
      expect(body.status).toBe('OK');
      expect(body.lastPingAt).not.toBeNull();
    } finally {
      await second.stop();
    }
  });

  it('refuses a bad configuration value with one line naming it', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/^invalid configuration: PORT: /);
    expect(() => loadConfig({ VIGIL_DEFAULT_PLAN: 'GOLD' })).toThrow(/VIGIL_DEFAULT_PLAN/);
  });
});
