import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { admittingPerTurn, startLocalServer } from './localServer.js';

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

  it('stops even when a client keeps a request unfinished past the grace', async () => {
    const server = await startLocalServer(loadConfig({ PORT: '0', VIGIL_DATA_DIR: join(dataDir, 'held'), VIGIL_SWEEP_SECONDS: '3600' }), { log: false, stopGraceMs: 0 });
    // Headers sent, the final blank line never: the connection is busy, not idle, so close() alone would wait for it.
    const socket = connect(Number(new URL(server.baseUrl).port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write('GET /api/health HTTP/1.1\r\nhost: localhost\r\n');
    // The server may end the held connection with a reset rather than a FIN: either is a close.
    const errors: string[] = [];
    socket.on('error', (err: NodeJS.ErrnoException) => errors.push(err.code ?? String(err)));
    // Not events.once: it rejects on the 'error' a reset emits before 'close'.
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await server.stop();
    await closed;
    expect(socket.destroyed).toBe(true);
    expect(errors.filter((code) => code !== 'ECONNRESET')).toEqual([]);
    await expect(fetch(`${server.baseUrl}/health`)).rejects.toThrow();
  });

  it('answers the next request on a keep-alive connection after a 413', async () => {
    const server = await startLocalServer(loadConfig({ PORT: '0', VIGIL_DATA_DIR: join(dataDir, 'edges'), VIGIL_SWEEP_SECONDS: '3600' }), { log: false });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const { port } = new URL(server.baseUrl);
      const send = (method: string, path: string, body?: Buffer) =>
        new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
          const headers = body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {};
          const req = request({ host: '127.0.0.1', port, method, path: `/api${path}`, agent, headers }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text }));
          });
          req.on('error', reject);
          req.end(body);
        });
      // Past the 1 MiB limit of every API body, and past the 10 KiB of a ping.
      for (const [path, size] of [
        ['/auth/signup', 2 * 1024 * 1024],
        ['/signals/ping/no-such-token', 20 * 1024],
      ] as const) {
        const oversized = await send('POST', path, Buffer.alloc(size, 'a'));
        expect(oversized.status).toBe(413);
        expect(JSON.parse(oversized.body)).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
        expect(oversized.connection).toBe('close');
        const next = await send('GET', '/health');
        expect(next).toMatchObject({ status: 200, body: '{"status":"ok"}' });
      }
    } finally {
      agent.destroy();
      await server.stop();
    }
  });

  it('answers token pings as the ping Lambda does and still counts them in /metrics', async () => {
    const metricsToken = 'local-metrics-token-0123456789';
    const server = await startLocalServer(loadConfig({ PORT: '0', VIGIL_DATA_DIR: join(dataDir, 'pings'), VIGIL_SWEEP_SECONDS: '3600', VIGIL_METRICS_TOKEN: metricsToken }), {
      log: false,
    });
    try {
      const signup = await post(`${server.baseUrl}/auth/signup`, { email: 'pings@example.com', password: 'correct horse battery' });
      const job = await post(`${server.baseUrl}/checks`, { name: 'pinged', projectId: 1, intervalSeconds: 300, graceSeconds: 60 }, String(signup.body.access_token));
      const answers = await Promise.all(
        [
          `/signals/ping/${String(job.body.token)}`,
          '/signals/ping/no-such-token',
          `/signals/ping/${String(job.body.token)}/256`,
          `/signals/ping/${String(job.body.token)}/restart`,
        ].map(async (path) => {
          const res = await fetch(`${server.baseUrl}${path}`);
          return [res.status, ((await res.json()) as { code?: string; message?: string }).code ?? 'OK'];
        }),
      );
      expect(answers).toEqual([
        [200, 'OK'],
        [404, 'CHECK_NOT_FOUND'],
        [400, 'VALIDATION_ERROR'],
        [404, 'NOT_FOUND'],
      ]);
      // A method no ping route takes: the 405 names the methods the ping routes do.
      const put = await fetch(`${server.baseUrl}/signals/ping/${String(job.body.token)}`, { method: 'PUT' });
      expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, POST, HEAD']);
      // Healthchecks' paths go through their own small app (core/localServer.ts localApp), with Healthchecks' plain-text answers.
      const hc = await Promise.all(
        [`/ping/${String(job.body.token)}`, `/ping/${String(job.body.token)}/fail`, '/ping/not-a-uuid-or-key/x/y/z'].map(async (path) => {
          const res = await fetch(`${server.baseUrl}${path}`);
          return [res.status, await res.text()];
        }),
      );
      expect(hc.slice(0, 2)).toEqual([
        [200, 'OK'],
        [200, 'OK'],
      ]);
      expect(hc[2]?.[0]).toBe(404);
      const metrics = await (await fetch(`${server.baseUrl.replace(/\/api$/, '')}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
      expect(metrics).toContain('vigil_pings_total{outcome="accepted"} 3');
      expect(metrics).toContain('vigil_pings_total{outcome="rejected"} 5');
    } finally {
      await server.stop();
    }
  });

  it('keeps the queue lanes in a store of their own in the data directory', async () => {
    const dir = join(dataDir, 'lanes');
    const laneConfig = loadConfig({ PORT: '0', VIGIL_DATA_DIR: dir, VIGIL_SWEEP_SECONDS: '3600' });
    const server = await startLocalServer(laneConfig, { log: false });
    try {
      expect(server.deps.queue.store).not.toBe(server.deps.store);
      expect(existsSync(join(dir, 'queues', 'CURRENT'))).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it('refuses a bad configuration value with one line naming it', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/^invalid configuration: PORT: /);
    expect(() => loadConfig({ VIGIL_DEFAULT_PLAN: 'GOLD' })).toThrow(/VIGIL_DEFAULT_PLAN/);
  });
});

describe('admitting new requests a few per loop turn', () => {
  const numbered = (i: number) => new Request(`http://vigil.test/${i}`);
  const numberOf = (request: Request) => Number(new URL(request.url).pathname.slice(1));

  it('starts at most perTurn per turn, in arrival order, and lets other work of the loop run between batches', async () => {
    const started: number[] = [];
    const seenByOtherWork: number[] = [];
    const admitted = admittingPerTurn((request: Request) => {
      started.push(numberOf(request));
      return new Response(String(numberOf(request)));
    }, 4);
    const answers = Array.from({ length: 10 }, (_, i) => admitted(numbered(i), {}));
    expect(started).toEqual([]);
    // Work queued for the loop meanwhile (as an answer from the store would be) runs after the first
    // batch, not after all ten; and again after the second.
    setImmediate(() => {
      seenByOtherWork.push(started.length);
      setImmediate(() => seenByOtherWork.push(started.length));
    });
    const bodies = await Promise.all(answers.map(async (answer) => (await answer).text()));
    expect(seenByOtherWork).toEqual([4, 8]);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(bodies).toEqual(started.map(String));
  });

  it('answers a long queue completely and in order', async () => {
    const started: number[] = [];
    const admitted = admittingPerTurn(async (request: Request) => {
      started.push(numberOf(request));
      return new Response(null, { status: 204 });
    }, 8);
    const answers = await Promise.all(Array.from({ length: 3_000 }, (_, i) => admitted(numbered(i), {})));
    expect(answers.every((answer) => answer.status === 204)).toBe(true);
    expect(started).toEqual(Array.from({ length: 3_000 }, (_, i) => i));
  });

  it('fails only the request whose handler throws or rejects', async () => {
    const admitted = admittingPerTurn((request: Request) => {
      if (numberOf(request) === 1) throw new Error('thrown');
      if (numberOf(request) === 2) return Promise.reject(new Error('rejected'));
      return new Response('ok');
    }, 2);
    const [zero, one, two, three] = [0, 1, 2, 3].map((i) => admitted(numbered(i), {}));
    await expect(one).rejects.toThrow('thrown');
    await expect(two).rejects.toThrow('rejected');
    expect(await (await zero)?.text()).toBe('ok');
    expect(await (await three)?.text()).toBe('ok');
  });
});
