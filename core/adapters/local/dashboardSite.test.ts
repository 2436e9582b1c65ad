import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/harness.js';
import { DASHBOARD_HEADERS } from '../../dashboard/siteHeaders.js';
import { localFetch } from '../../localServer.js';
import { withDashboard } from './dashboardSite.js';

/** A build as Vite lays it out: index.html naming a content-hashed script under assets/. */
const INDEX = '<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = 'console.log("dashboard")';

let t: TestContext;
let dist: string;
let server: ServerType;
let origin: string;

beforeAll(async () => {
  t = await createTestContext();
  dist = mkdtempSync(join(tmpdir(), 'vigil-dist-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), INDEX);
  writeFileSync(join(dist, 'assets', 'index-abc123.js'), SCRIPT);
  // The local server's own stack: localFetch over the app with the dashboard beside it.
  server = serve({ fetch: localFetch(withDashboard(t.app.fetch, dist)), port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dist, { recursive: true, force: true });
});

const expectDashboardHeaders = (res: Response) => {
  for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) expect(res.headers.get(name), name).toBe(value);
};

describe('the local server serves the built dashboard beside /api', () => {
  it('serves index.html at / with the CSP and the other security headers, revalidated on each load', async () => {
    const res = await fetch(`${origin}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toBe(INDEX);
    expectDashboardHeaders(res);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('cache-control')).toBe('no-cache');
  });

  it('serves a hashed asset with a year-long immutable cache; a missing one is a 404, not the page', async () => {
    const res = await fetch(`${origin}/assets/index-abc123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await res.text()).toBe(SCRIPT);
    const missing = await fetch(`${origin}/assets/index-gone.js`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).not.toContain('<div id="root">');
  });

  it('answers a client-side route such as /checks/123 with index.html (SPA fallback)', async () => {
    for (const path of ['/checks/123', '/incidents', '/signin']) {
      const res = await fetch(`${origin}${path}`);
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).toBe(INDEX);
      expectDashboardHeaders(res);
    }
  });

  it('leaves /api alone: JSON answers, JSON 404s, and non-GET methods reach the app', async () => {
    const health = await fetch(`${origin}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const unknown = await fetch(`${origin}/api/no-such-route`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { code: string }).code).toBe('NOT_FOUND');
    expect(unknown.headers.get('content-security-policy')).toBeNull();
    const doc = await fetch(`${origin}/api/openapi.json`);
    expect(((await doc.json()) as { info: { title: string } }).info.title).toBe('Vigil dashboard API');
    // A POST outside /api is the app's (the 404 says so in JSON), never the page.
    const post = await fetch(`${origin}/checks/123`, { method: 'POST' });
    expect(post.status).toBe(404);
    expect(post.headers.get('content-type')).toMatch(/json/);
  });

  it('keeps the status pages the app serves outside /api (an unknown slug is its HTML 404, not the dashboard)', async () => {
    const res = await fetch(`${origin}/status/no-such-page`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toBe(INDEX);
  });

  it('serves the app alone when there is no build', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'vigil-nodist-'));
    const fetchOnly = withDashboard(t.app.fetch, empty);
    expect(fetchOnly).toBe(t.app.fetch);
    rmSync(empty, { recursive: true, force: true });
  });
});
