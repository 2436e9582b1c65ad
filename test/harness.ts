import { inject } from 'vitest';
import { ulid } from 'ulid';
import { startEmbeddedStore } from '../core/adapters/local/embeddedStore.js';
import { createApp } from '../core/app.js';
import { ManualClock } from '../core/clock.js';
import { loadConfig, type Config } from '../core/config.js';
import { createLocalDeps, type LocalDeps } from '../core/runtime.js';

export type TestResponse<T = Record<string, unknown>> = {
  status: number;
  body: T;
  headers: Headers;
  text: string;
};

export type RequestOptions = {
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
};

let ownStore: Promise<string> | undefined;

/**
 * The store a test's table is made in: the run's shared one (test/globalSetup.ts), reached over
 * its port; or, with VIGIL_TEST_STORE=in-process, one of this test file's own in its process, so
 * that its clients take the direct path `npm start` takes (core/adapters/local/directDispatch.ts).
 */
function storeEndpoint(): Promise<string> {
  if (process.env.VIGIL_TEST_STORE !== 'in-process') return Promise.resolve(inject('dynamoEndpoint'));
  ownStore ??= startEmbeddedStore(':memory:').then((store) => store.endpoint);
  return ownStore;
}

/**
 * A fresh table in the shared in-memory store, the real app over it, a clock the test moves, and
 * a queue the test drains: integration tests go through HTTP into the embedded store.
 */
export async function createTestContext(overrides: Partial<Record<string, string>> = {}) {
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  // scrypt at 2^12 keeps sign-ups fast; production's default (2^17) is asserted in core/auth/passwordCost.test.ts.
  // At that cost the process-wide hash bound would only make a test's concurrent sign-ups race for
  // one slot, so tests lift it; core/auth/hashSlots.test.ts and passwordAttempts.test.ts set it low.
  const config: Config = loadConfig({ VIGIL_TABLE_NAME: `t_${ulid()}`, VIGIL_PASSWORD_HASH_LOG_N: '12', VIGIL_PASSWORD_HASH_CONCURRENCY: '64', ...overrides });
  const deps: LocalDeps = await createLocalDeps({ config, endpoint: await storeEndpoint(), clock, autoDrain: false });
  const app = createApp(deps);

  async function request<T = Record<string, unknown>>(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const url = path.startsWith('http') ? path : `http://localhost${path === '/api' || path.startsWith('/api/') ? path : `/api${path}`}`;
    // `x-test-ip` only picks the socket address the app sees; the app itself never reads the header.
    const remoteAddress = headers['x-test-ip'] ?? '127.0.0.1';
    delete headers['x-test-ip'];
    const response = await app.request(url, { method, headers, body }, { incoming: { socket: { remoteAddress } } });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return { status: response.status, body: parsed as T, headers: response.headers, text };
  }

  let counter = 0;
  /** Signs up a new user with their own workspace. */
  async function signup(name = `user${counter + 1}`) {
    counter++;
    const email = `${name}-${ulid().toLowerCase()}@example.com`;
    const password = 'correct horse battery';
    const res = await request<{
      access_token: string;
      refresh_token: string;
      user: { id: number; email: string };
      workspace: { id: number };
    }>('POST', '/auth/signup', {
      body: { email, password, name },
      // Each test user signs up from its own address, so the per-address sign-up limit stays out of the way.
      headers: { 'x-test-ip': `198.18.${Math.floor(counter / 250)}.${(counter % 250) + 1}` },
    });
    if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${res.text}`);
    const projects = await request<{ id: number }[]>('GET', `/projects?workspaceId=${res.body.workspace.id}`, {
      token: res.body.access_token,
    });
    const project = projects.body[0];
    if (!project) throw new Error('signup made no default project');
    return {
      email,
      password,
      token: res.body.access_token,
      refreshToken: res.body.refresh_token,
      userId: res.body.user.id,
      workspaceId: res.body.workspace.id,
      projectId: project.id,
    };
  }

  /** An API key in the user's workspace. */
  async function apiKey(user: { token: string; workspaceId: number }, options: { permission?: 'read_only' | 'read_write'; kind?: 'service' | 'ping' } = {}): Promise<string> {
    const res = await request<{ key: string }>('POST', '/api-keys', {
      token: user.token,
      body: { workspaceId: user.workspaceId, name: 'test key', permission: options.permission ?? 'read_write', kind: options.kind ?? 'service' },
    });
    if (res.status !== 201) throw new Error(`api key failed: ${res.status} ${res.text}`);
    return res.body.key;
  }

  return { deps, app, clock, config, request, signup, apiKey };
}

export type TestContext = Awaited<ReturnType<typeof createTestContext>>;

/** Asserts the spec's error body and returns it. */
export function expectError(res: TestResponse<unknown>, status: number, code?: string): { statusCode: number; message: string; error: string; code?: string } {
  const body = res.body as { statusCode?: unknown; message?: unknown; error?: unknown; code?: unknown };
  if (res.status !== status || body.statusCode !== status || typeof body.message !== 'string' || typeof body.error !== 'string') {
    throw new Error(`expected error ${status}${code ? ` ${code}` : ''}, got ${res.status}: ${res.text}`);
  }
  if (code !== undefined && body.code !== code) throw new Error(`expected code ${code}, got ${String(body.code)}: ${res.text}`);
  return body as { statusCode: number; message: string; error: string; code?: string };
}
