import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Page } from 'puppeteer-core';
import { withDashboard } from '../../core/adapters/local/dashboardSite.js';
import { localFetch } from '../../core/localServer.js';
import { attachLocalStreams } from '../../core/streams/local.js';
import { ensureDashboardBuilt } from '../../web/scripts/ensureBuilt.js';
import type { TestContext } from '../harness.js';

/**
 * The dashboard's browser tests: the real app with the built dashboard beside it, exactly as
 * `npm start` serves it (localFetch over withDashboard), on a loopback port. The build is made
 * first when web/dist is missing or stale, as `npm start` does. The origin is `localhost`, which
 * Chromium treats as secure, so the Secure session cookies work over plain HTTP as they do locally.
 * The local WebSocket stream is attached too, as npm start attaches it (the live updates).
 * `served` collects the API's answers as the server gave them.
 */
export async function serveDashboard(t: TestContext, served: string[] = []): Promise<{ origin: string; close: () => Promise<void> }> {
  ensureDashboardBuilt();
  // Each API answer as "<status> <method> <path>", recorded by the server before the browser
  // sees it (the browser's own network events can arrive after the page has moved on).
  const observed: typeof t.app.fetch = async (request, env) => {
    const response = await t.app.fetch(request, env);
    const path = new URL(request.url).pathname;
    if (path.startsWith('/api/')) served.push(`${response.status} ${request.method} ${path}`);
    return response;
  };
  const server: ServerType = serve({ fetch: localFetch(withDashboard(observed)), port: 0, hostname: '127.0.0.1' });
  // The WebSocket stream on the same server, as npm start attaches it (the dashboard's live updates).
  const streams = attachLocalStreams(server, t.deps);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: () => {
      streams.close();
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// axe-core is the web workspace's; npm hoists it, so it is resolved, not spelled as a path.
const AXE_SOURCE = readFileSync(join(dirname(createRequire(import.meta.url).resolve('axe-core')), 'axe.min.js'), 'utf8');

type AxeResult = { violations: { id: string; help: string; nodes: { target: string[] }[] }[] };

/**
 * axe-core's violations on the page as it stands, one line each. Evaluated through the DevTools
 * protocol, which the page's CSP (script-src 'self') does not govern; a <script> tag would be blocked.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<AxeResult> } }).axe;
    const answer = await axe.run(document, { resultTypes: ['violations'] });
    return answer.violations.map((v) => `${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  return result;
}

export const setColorScheme = (page: Page, scheme: 'light' | 'dark') => page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);

/** Rows of the checks table as [name, status] pairs, in order. */
export const tableRows = (page: Page): Promise<[string, string][]> =>
  page.$$eval('.checks-table tbody tr', (rows) =>
    rows.map((row): [string, string] => [row.querySelector('td:nth-child(3) a')?.textContent ?? '', row.querySelector('[data-status]')?.getAttribute('data-status') ?? '']),
  );

/** Waits until the table shows exactly these names (any order). */
export async function waitForRows(page: Page, names: string[]): Promise<void> {
  await page.waitForFunction(
    (expected: string[]) => {
      const shown = [...document.querySelectorAll('.checks-table tbody tr td:nth-child(3) a')].map((a) => a.textContent ?? '').sort();
      return JSON.stringify(shown) === JSON.stringify([...expected].sort());
    },
    { timeout: 15_000 },
    names,
  );
}

/** Types into an input after clearing it (React reads the input events). */
export async function fill(page: Page, selector: string, value: string): Promise<void> {
  const input = await page.waitForSelector(selector);
  if (!input) throw new Error(`no ${selector}`);
  await input.click({ count: 3 });
  await page.keyboard.press('Backspace');
  await input.type(value);
}

/**
 * The page's clock told to read the server's (the test's ManualClock), so "5 min ago" and the
 * screenshots agree with the data however far the test moved the server's time. Installed through
 * the DevTools protocol before any script of a document runs (the page's CSP does not govern it);
 * `syncClock` after the test moved the server's clock sets the open document and the next ones.
 */
export async function followServerClock(page: Page, now: () => Date): Promise<{ syncClock(): Promise<void> }> {
  const install = (initial: number) => {
    const Real = Date;
    let shift = initial - Real.now();
    function Shifted(this: unknown, ...args: unknown[]): Date | string {
      const at = new Real(Real.now() + shift);
      if (!new.target) return at.toString();
      return args.length === 0 ? at : new Real(...(args as [number]));
    }
    Shifted.prototype = Real.prototype;
    Object.assign(Shifted, { now: () => Real.now() + shift, parse: Real.parse, UTC: Real.UTC });
    Object.defineProperty(window, 'vigilSetNow', { value: (ms: number) => (shift = ms - Real.now()) });
    (window as unknown as { Date: unknown }).Date = Shifted;
  };
  let script = await page.evaluateOnNewDocument(install, now().getTime());
  return {
    syncClock: async () => {
      await page.removeScriptToEvaluateOnNewDocument(script.identifier);
      script = await page.evaluateOnNewDocument(install, now().getTime());
      await page.evaluate((ms: number) => (window as unknown as { vigilSetNow?: (ms: number) => void }).vigilSetNow?.(ms), now().getTime());
    },
  };
}
