import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Browser, Page } from 'puppeteer-core';
import type { TestContext } from '../harness.js';

/**
 * Real-browser tests (Debian's `chromium`, driven by puppeteer-core), the same set-up as the
 * status page's browser test: `VIGIL_CHROMIUM` picks the binary; without one the tests skip with
 * a message rather than fail.
 */
export const CHROMIUM = process.env.VIGIL_CHROMIUM ?? '/usr/bin/chromium';
export const hasBrowser = existsSync(CHROMIUM);

export async function launchBrowser(): Promise<Browser> {
  const puppeteer = (await import('puppeteer-core')).default;
  return puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

const listening = async (server: { once(event: 'listening', listener: () => void): unknown; address(): string | AddressInfo | null }): Promise<string> => {
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** The real app on a loopback port; `close` stops it. */
export async function serveApp(t: TestContext): Promise<{ origin: string; close: () => Promise<void> }> {
  const server: ServerType = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
  const origin = await listening(server);
  return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Another origin serving fixed HTML documents by path: a third-party host page. */
export async function serveHostPages(pages: Record<string, string>): Promise<{ origin: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const body = pages[req.url ?? ''];
    res.writeHead(body === undefined ? 404 : 200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(body ?? 'not found');
  });
  server.listen(0, '127.0.0.1');
  const origin = await listening(server);
  return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Console errors and warnings, page errors and failed requests of a tab, to assert on. */
export function collectProblems(tab: Page): string[] {
  const problems: string[] = [];
  tab.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warn') problems.push(`${message.type()}: ${message.text()}`);
  });
  tab.on('pageerror', (error) => problems.push(`pageerror: ${String(error)}`));
  tab.on('requestfailed', (request) => problems.push(`requestfailed: ${request.url()} ${request.failure()?.errorText ?? ''}`));
  return problems;
}
