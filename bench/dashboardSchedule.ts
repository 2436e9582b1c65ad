import type { Page } from 'puppeteer-core';
import type { ManualClock } from '../core/clock.js';
import type { Deps } from '../core/deps.js';
import { signUp } from './seed.js';

/**
 * A schedule's two-week timeline on screen: three layers (daily, weekly, 8-hour shifts), the 50
 * overrides of the fortnight on their row, and the final shifts. The fortnight is fixed in the URL,
 * so the figures do not depend on the day they run. Two ways there:
 * - `inApp`, `dashboard_schedule_timeline_ms`: in the signed-in dashboard, from pressing "Next week"
 *   on the week before (a page freshly loaded, so nothing of the new fortnight is cached) to the new
 *   fortnight drawn: its request, its answer and the render;
 * - `fullLoad`: from navigating to the schedule's URL (a reload: the scripts from the browser's
 *   cache, the session restored by cookie first) to the timeline drawn.
 * Each measurement starts once the previous page's hours report (its last request) is on screen.
 */
const OVERRIDES = 50;
const FROM = '2026-03-23';
/** A week before FROM: its fortnight holds only the first half of the overrides. */
const WEEK_BEFORE = '2026-03-16';
const RANGE = { from: '2026-03-22T23:00:00.000Z', to: '2026-04-05T22:00:00.000Z' };

type Ctx = { origin: string; deps: Deps; clock: ManualClock; page: Page; workspaceId: number; email: string; loads: number; waitMs: number };

export async function scheduleTimelineSamples({ origin, deps, clock, page, workspaceId, email, loads, waitMs }: Ctx): Promise<{ inApp: number[]; fullLoad: number[] }> {
  const token = await sessionToken(origin, email);
  const call = async <T>(method: string, path: string, body: unknown): Promise<T> => {
    const res = await fetch(`${origin}/api${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
  // Three more people in the workspace (each signed up, then given a membership, as an invite would).
  const people = [];
  for (const name of ['oncall-a', 'oncall-b', 'oncall-c']) {
    const person = await signUp(origin, `bench-${name}`);
    if (person.actor.kind !== 'user') throw new Error('sign-up made no user');
    const iso = clock.now().toISOString();
    await deps.store.entities.membership.create({ workspaceId, userId: person.actor.userId, role: 'MEMBER', createdAt: iso, updatedAt: iso }).go();
    people.push(person.actor.userId);
  }
  const turns = (ids: number[]) => ids.map((userId, position) => ({ userId, position }));
  const schedule = await call<{ id: number }>('POST', '/on-call-schedules', {
    workspaceId,
    name: 'Platform',
    timezone: 'Europe/Berlin',
    rotations: [
      { name: 'Primary', type: 'daily', layerPosition: 0, effectiveFrom: '2026-03-02T08:00:00Z', handoffTime: '09:00', participants: turns(people) },
      { name: 'Secondary', type: 'weekly', layerPosition: 1, effectiveFrom: '2026-03-02T08:00:00Z', handoffTime: '09:00', handoffDay: 1, participants: turns(people.slice(0, 2)) },
      {
        name: 'Follow the sun',
        type: 'custom',
        layerPosition: 2,
        effectiveFrom: '2026-03-02T08:00:00Z',
        handoffTime: '00:00',
        customShiftHours: 8,
        participants: turns([...people].reverse()),
      },
    ],
  });
  // 50 overrides of three hours spread over the fortnight, every other one replacing a person.
  const span = Date.parse(RANGE.to) - Date.parse(RANGE.from);
  for (let i = 0; i < OVERRIDES; i++) {
    const startAt = Date.parse(RANGE.from) + Math.floor((span * i) / OVERRIDES);
    const overrideUserId = people[i % people.length] as number;
    const replacedUserId = i % 2 === 0 ? null : (people[(i + 1) % people.length] as number);
    if (i % 40 === 39) clock.advanceSeconds(61); // the session API's 100 requests a minute
    await call('POST', '/on-call-overrides', {
      scheduleId: schedule.id,
      overrideUserId,
      replacedUserId,
      startAt: new Date(startAt).toISOString(),
      endAt: new Date(startAt + 3 * 3_600_000).toISOString(),
    });
  }
  const url = (from: string) => `${origin}/schedules/${schedule.id}?from=${from}`;
  const drawn = () =>
    page.waitForFunction(
      (count: number, from: string) =>
        document.querySelector('.tl')?.getAttribute('data-from') === from &&
        document.querySelectorAll('.tl [aria-label=Overrides] li').length === count &&
        document.querySelectorAll('.tl-final li.tl-shift').length > 0 &&
        document.querySelectorAll('[aria-label^="Layer 3"] li').length > 0,
      { polling: 'mutation', timeout: waitMs },
      OVERRIDES,
      RANGE.from,
    );
  // The page goes on to ask for what lies below the timeline, the hours report last; the next
  // measurement starts once that is on screen, as a person's next step would, not while the server
  // still computes it. (Network idle never comes: the live stream stays open.)
  const settled = () => page.waitForSelector('.hours-table tbody tr', { timeout: waitMs });
  const fullLoad: number[] = [];
  // One load first, not timed: the lazy chunk is fetched and cached, as every later visit finds it.
  for (let i = -1; i < loads; i++) {
    clock.advanceSeconds(61);
    const startedAt = performance.now();
    await page.goto(url(FROM), { waitUntil: 'domcontentloaded' });
    await drawn();
    if (i >= 0) fullLoad.push(performance.now() - startedAt);
    await settled();
  }
  const inApp: number[] = [];
  for (let i = -1; i < loads; i++) {
    clock.advanceSeconds(61);
    await page.goto(url(WEEK_BEFORE), { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.tl-final li.tl-shift', { timeout: waitMs });
    await settled();
    const next = await page.waitForSelector('button ::-p-text(Next week)', { timeout: waitMs });
    const startedAt = performance.now();
    await next?.click();
    await drawn();
    if (i >= 0) inApp.push(performance.now() - startedAt);
    await settled();
  }
  // BENCH_DASHBOARD_TRACE=<file>: one more load, traced (open it in Chrome's performance panel).
  const trace = process.env.BENCH_DASHBOARD_TRACE;
  if (trace) {
    clock.advanceSeconds(61);
    await page.tracing.start({ path: trace, screenshots: false });
    await page.goto(url(FROM), { waitUntil: 'domcontentloaded' });
    await drawn();
    await page.tracing.stop();
  }
  return { inApp, fullLoad };
}

async function sessionToken(origin: string, email: string): Promise<string> {
  const res = await fetch(`${origin}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username: email, password: 'benchmark password' }),
  });
  if (!res.ok) throw new Error(`token answered ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
