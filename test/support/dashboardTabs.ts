import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'puppeteer-core';
import { expect } from 'vitest';
import type { TestContext } from '../harness.js';
import { collectProblems } from './browser.js';
import { axeViolations, fill, followServerClock, setColorScheme } from './dashboard.js';

/**
 * Steps shared by the on-call and windows browser tests: a signed-in tab per person (each in its
 * own browser context, so sessions do not mix), axe in light and dark, README screenshots, and a
 * React-safe way to set date and time inputs (typing into them depends on the browser's locale).
 */
export type Tab = { page: Page; problems: string[]; sync: () => Promise<void> };

export async function signedInTab(browser: Browser, origin: string, t: TestContext, who: { email: string; password: string }, workspaceId: number): Promise<Tab> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  // Dates render in one zone whatever the machine's, so the screenshots do not change.
  await page.emulateTimezone('UTC');
  const { syncClock } = await followServerClock(page, () => t.clock.now());
  const problems = collectProblems(page);
  await page.goto(`${origin}/signin`, { waitUntil: 'domcontentloaded' });
  // The workspace to open (a person may belong to several): the switcher's remembered choice.
  await page.evaluate((id: number) => localStorage.setItem('vigil-workspace', String(id)), workspaceId);
  await fill(page, 'input[name=email]', who.email);
  await fill(page, 'input[name=password]', who.password);
  await page.click('button[type=submit]');
  await page.waitForSelector('nav[aria-label=Main]');
  return { page, problems, sync: syncClock };
}

export async function expectAccessible(page: Page, label: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await setColorScheme(page, scheme);
    expect(await axeViolations(page), `${label} (${scheme})`).toEqual([]);
  }
  await setColorScheme(page, 'light');
}

const SCREENSHOTS = new URL('../../docs/screenshots/', import.meta.url);

/** A light and a dark PNG of the screen as it stands, for the README. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const close of await page.$$('.toast button[aria-label=Dismiss]')) await close.click();
  await page.waitForFunction(() => document.querySelector('.toast') === null && document.querySelector('.skeleton') === null, { timeout: 15_000 });
  for (const scheme of ['light', 'dark'] as const) {
    await setColorScheme(page, scheme);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.mouse.move(0, 0);
    await page.screenshot({ path: new URL(`${name}-${scheme}.png`, SCREENSHOTS).pathname as `${string}.png`, fullPage: true });
  }
  await setColorScheme(page, 'light');
}

/** Sets an input's value as a person's edit would (React hears the input event), for date, time and datetime-local inputs. */
export async function setValue(page: Page, selector: string, value: string): Promise<void> {
  await page.waitForSelector(selector);
  await page.$eval(
    selector,
    (el, v) => {
      const input = el as HTMLInputElement;
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(input, v);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    },
    value,
  );
}

export const clickText = async (page: Page, selector: string, text: string): Promise<void> => {
  const handle = await page.waitForSelector(`${selector}::-p-text(${text})`);
  await handle?.click();
};

export const toast = (page: Page, text: string) => page.waitForSelector(`.toast ::-p-text(${text})`, { timeout: 15_000 });
