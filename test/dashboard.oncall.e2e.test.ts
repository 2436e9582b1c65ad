import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { collectProblems, hasBrowser, launchBrowser, CHROMIUM } from './support/browser.js';
import { freshRateWindow } from './support/checks.js';
import { axeViolations, fill, serveDashboard, setColorScheme } from './support/dashboard.js';
import { schedule, team } from './support/escalation.js';
import { addToWorkspace, type TestUser } from './support/identity.js';
import { probeContext, targetServer } from './support/probes.js';
import type { TestContext } from './harness.js';

if (!hasBrowser) console.warn(`dashboard on-call browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set VIGIL_CHROMIUM)`);

/**
 * The on-call screens in Chromium against the real app and the built SPA: alert
 * channels (masked secrets, test send, e-mail confirmation, the policies using each), escalation
 * policies (step editor with the server's live preview, keyboard reorder, legacy rules turned into
 * a policy), teams (driven by the keyboard alone) and dependencies; then what a VIEWER sees, and
 * what the UI says when the API answers 403 after a role changed. axe-core checks every screen in
 * light and dark. Every wait is for a DOM condition.
 */
describe.skipIf(!hasBrowser)('the dashboard in Chromium: channels, escalation, teams, dependencies', () => {
  let t: TestContext;
  let browser: Browser;
  let page: Page;
  let site: { origin: string; close: () => Promise<void> };
  let target: Awaited<ReturnType<typeof targetServer>>;
  let problems: string[];
  let owner: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let vera: TestUser;
  const ids: Record<string, number> = {};
  /** Paths answered 204: openapi-fetch cancels the empty body, which Chromium reports as aborted. */
  const noContent = new Set<string>();
  const SLACK_URL = 'https://hooks.slack.com/services/T0000/B0000/abcdefsecret9876';

  const go = async (path: string) => {
    await page.goto(`${site.origin}${path}`, { waitUntil: 'domcontentloaded' });
  };
  const expectAccessible = async (label: string, on: Page = page) => {
    for (const scheme of ['light', 'dark'] as const) {
      await setColorScheme(on, scheme);
      expect(await axeViolations(on), `${label} (${scheme})`).toEqual([]);
    }
    await setColorScheme(on, 'light');
  };
  const clickText = async (selector: string, text: string, on: Page = page) => {
    const handle = await on.waitForSelector(`${selector}::-p-text(${text})`);
    await handle?.click();
  };
  const screenshot = async (name: string) => {
    mkdirSync('docs/screenshots', { recursive: true });
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    for (const scheme of ['light', 'dark'] as const) {
      await setColorScheme(page, scheme);
      await page.screenshot({ path: `docs/screenshots/${name}-${scheme}.png`, fullPage: true });
    }
    await setColorScheme(page, 'light');
  };
  const toast = (text: string, on: Page = page) => on.waitForSelector(`.toast ::-p-text(${text})`, { timeout: 15_000 });
  const signIn = async (on: Page, user: TestUser) => {
    await on.goto(`${site.origin}/signin`, { waitUntil: 'domcontentloaded' });
    await fill(on, 'input[name=email]', user.email);
    await fill(on, 'input[name=password]', user.password);
    await clickText('button', 'Sign in', on);
    await on.waitForSelector('nav[aria-label=Main]');
  };
  const focused = (on: Page = page) =>
    on.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.getAttribute('name') ?? document.activeElement?.textContent?.trim() ?? '');
  /** Presses Tab until the focused element matches (the keyboard-only flows reach controls this way). */
  const tabTo = async (selector: string) => {
    for (let i = 0; i < 60; i++) {
      if (await page.evaluate((s: string) => document.activeElement?.matches(s) ?? false, selector)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`Tab never reached ${selector}`);
  };
  const previewTargets = () =>
    page.$$eval('.preview-steps > li', (items) =>
      items.map((li) => `${li.querySelector('strong')?.textContent ?? ''} | ${[...li.querySelectorAll('.preview-target')].map((x) => x.textContent).join('; ')}`),
    );

  beforeAll(async () => {
    t = await probeContext();
    t.clock.set(new Date());
    target = await targetServer();
    site = await serveDashboard(t);
    owner = await t.signup('Ada');
    bob = await t.signup('Bob');
    carol = await t.signup('Carol');
    vera = await t.signup('Vera');
    await addToWorkspace(t, owner, bob, 'MEMBER');
    await addToWorkspace(t, owner, carol, 'MEMBER');
    await addToWorkspace(t, owner, vera, 'VIEWER');
    // Bob is on call every day; an override gives Carol the hours around now (the preview must say Carol).
    ids.schedule = await schedule(t, owner, [bob.userId], owner.workspaceId, { name: 'Primary' });
    const now = t.clock.now().getTime();
    const override = await t.request('POST', '/on-call-overrides', {
      token: owner.token,
      body: {
        scheduleId: ids.schedule,
        overrideUserId: carol.userId,
        startAt: new Date(now - 3_600_000).toISOString(),
        endAt: new Date(now + 2 * 86_400_000).toISOString(),
        reason: 'swap',
      },
    });
    expect(override.status, override.text).toBe(201);
    ids.team = await team(t, owner, [bob.userId, vera.userId]);
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    problems = collectProblems(page);
    page.on('response', (r) => {
      if (r.status() === 204) noContent.add(new URL(r.url()).pathname);
    });
    await signIn(page, owner);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await target?.close();
  });

  it('item 1: creates webhook, e-mail and Slack channels, shows the secret once, test-sends, edits, and says which policies use each', { timeout: 120_000 }, async () => {
    freshRateWindow(t);
    await go('/channels');
    await page.waitForSelector('section.empty ::-p-text(No alert channels yet)');
    await expectAccessible('empty channels list');
    await clickText('a', 'New channel');
    await page.waitForSelector('form[aria-label="New alert channel"]');
    await expectAccessible('new channel form');
    await clickText('label', 'Webhook');
    await fill(page, 'input[name=name]', 'Ops hook');
    await fill(page, 'input[name=address]', `${target.origin}/hook`);
    await clickText('button', 'Create channel');
    // The signing secret is shown once, whole, with a copy button.
    const secret = await page.waitForSelector('#webhook-secret');
    expect(await secret?.evaluate((input) => (input as HTMLInputElement).value)).toMatch(/^whsec_/);
    await expectAccessible('webhook secret');
    await clickText('a', 'Done');

    await clickText('a', 'New channel');
    await fill(page, 'input[name=name]', 'On-call mail');
    await fill(page, 'input[name=address]', 'oncall@example.com');
    await clickText('button', 'Create channel');
    await toast('Created “On-call mail”');
    await clickText('a', 'New channel');
    await clickText('label', 'Slack');
    await fill(page, 'input[name=name]', 'Slack ops');
    await fill(page, 'input[name=address]', SLACK_URL);
    await clickText('button', 'Create channel');
    await page.waitForSelector('tr ::-p-text(Slack ops)');

    const rowOf = async (name: string) => {
      const id = await page.waitForFunction(
        (n: string) => [...document.querySelectorAll('.channels-table tbody tr')].find((tr) => tr.querySelector('th')?.textContent === n)?.getAttribute('data-channel-id'),
        {},
        name,
      );
      return page.waitForSelector(`tr[data-channel-id="${String(await id.jsonValue())}"]`);
    };
    // The e-mail channel waits for its confirmation link; the others are active.
    const mail = await rowOf('On-call mail');
    expect(await mail?.$eval('[data-state]', (el) => el.getAttribute('data-state'))).toBe('unconfirmed');
    ids.hook = Number(await (await rowOf('Ops hook'))?.evaluate((row) => row.getAttribute('data-channel-id')));

    await page.click('button[aria-label="Send test to Ops hook"]');
    await page.waitForFunction(() => document.querySelector('.test-result')?.textContent === 'Test to “Ops hook”: Delivered (HTTP 200)', { timeout: 15_000 });
    await page.click('button[aria-label="Send test to On-call mail"]');
    await page.waitForSelector('.test-result .form-error ::-p-text(Test to “On-call mail”)');

    await page.click('a[aria-label="Edit Ops hook"]');
    await page.waitForSelector('form[aria-label="Edit Ops hook"]');
    // The stored URL is shown (as the API shows it to an owner) but never put back in the field.
    expect(await page.$eval('input[name=address]', (input) => (input as HTMLInputElement).value)).toBe('');
    await page.waitForFunction((url: string) => document.querySelector('.field-hint')?.textContent?.includes(url) ?? false, {}, `${target.origin}/hook`);
    await fill(page, 'input[name=name]', 'Ops webhook');
    await clickText('button', 'Save');
    await toast('Saved “Ops webhook”');
    await page.waitForSelector('tr ::-p-text(Ops webhook)');
    // No policy yet: the column says so (item 2 adds one and this test's last check reads it back).
    expect(await (await rowOf('Ops webhook'))?.$eval('.used-by', (td) => td.textContent)).toBe('No policy');
    await expectAccessible('channels list');
    await screenshot('alert-channels');
  });

  it('item 2: a three-step policy whose live preview names the person on call after an override, updating as it is edited', { timeout: 120_000 }, async () => {
    freshRateWindow(t);
    await go('/policies');
    await page.waitForSelector('section.empty ::-p-text(No escalation policies yet)');
    await clickText('a', 'New policy');
    await page.waitForSelector('form[aria-label="New escalation policy"]');
    await fill(page, 'input[name=name]', 'Primary escalation');
    await page.select('select[name=step-0-target-0]', String(ids.hook));
    await clickText('button', 'Add step');
    await page.select('select[name=step-1-target-0-kind]', 'ON_CALL_SCHEDULE');
    await page.select('select[name=step-1-target-0]', String(ids.schedule));
    await clickText('button', 'Add step');
    await page.select('select[name=step-2-target-0-kind]', 'TEAM');
    await page.select('select[name=step-2-target-0]', String(ids.team));
    // Bob's rotation, but Carol's override covers now: the schedule step names Carol.
    await page.waitForFunction(() => document.querySelectorAll('.preview-steps > li').length === 3, { timeout: 15_000 });
    expect(await previewTargets()).toEqual(['+0 min | Alert channel Ops webhook', '+15 min | On call on Primary: Carol', '+30 min | Team SRE: Bob, Vera']);
    // Edits re-run the preview: a shorter delay, then a repeat (each step again after the cycle).
    await fill(page, 'input[name=step-1-delay]', '10');
    await page.waitForSelector('.preview-steps ::-p-text(+10 min)');
    await fill(page, 'input[name=repeatCount]', '1');
    await page.waitForFunction(() => document.querySelectorAll('.preview-steps > li').length === 6, { timeout: 15_000 });
    expect((await previewTargets())[4]).toBe('+60 min (repeat 1) | On call on Primary: Carol');
    await fill(page, 'input[name=ackTimeoutMinutes]', '30');
    await expectAccessible('policy editor');
    await screenshot('escalation-policy-editor');
    await clickText('button', 'Create policy');
    await toast('Created “Primary escalation”');
    await page.waitForSelector('tr ::-p-text(Primary escalation)');
    const token = owner.token;
    const stored = await t.request<{
      items: { id: number; name: string; priority: number; repeatCount: number; ackTimeoutMinutes: number | null; steps: { delayMinutes: number }[] }[];
    }>('GET', `/escalation-policies?workspaceId=${owner.workspaceId}`, { token });
    const primary = stored.body.items.find((p) => p.name === 'Primary escalation');
    expect(primary).toMatchObject({ priority: 0, repeatCount: 1, ackTimeoutMinutes: 30 });
    expect(primary?.steps.map((s) => s.delayMinutes)).toEqual([0, 10, 30]);
    ids.primary = primary?.id ?? 0;

    // The channel list now names the policy that uses the webhook.
    await go('/channels');
    await page.waitForSelector(`tr[data-channel-id="${ids.hook}"] .used-by a ::-p-text(Primary escalation)`);
  });

  it('item 2: reorders priority from the keyboard, and turns a project’s legacy rules into a policy', { timeout: 120_000 }, async () => {
    freshRateWindow(t);
    const night = await t.request<{ id: number }>('POST', '/escalation-policies', {
      token: owner.token,
      body: {
        workspaceId: owner.workspaceId,
        name: 'Night shift',
        priority: 5,
        steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'USER', targetUserId: bob.userId }] }],
      },
    });
    expect(night.status, night.text).toBe(201);
    // An integration the converted policy will also select (its incidents, whatever their project).
    const prometheus = await t.request<{ id: number }>('POST', '/integrations', {
      token: owner.token,
      body: { workspaceId: owner.workspaceId, name: 'Prometheus prod', kind: 'ALERTMANAGER' },
    });
    expect(prometheus.status, prometheus.text).toBe(201);
    const slack = (await t.request<{ id: number; name: string }[]>('GET', `/alert-channels?workspaceId=${owner.workspaceId}`, { token: owner.token })).body.find(
      (c) => c.name === 'Slack ops',
    );
    for (const [alertChannelId, delayMinutes] of [
      [ids.hook, 0],
      [slack?.id, 5],
    ]) {
      const rule = await t.request('POST', '/escalation-rules', { token: owner.token, body: { projectId: owner.projectId, alertChannelId, delayMinutes } });
      expect(rule.status, rule.text).toBe(201);
    }
    await go('/policies');
    const order = () => page.$$eval('.policies-table tbody th a', (links) => links.map((a) => a.textContent));
    await page.waitForFunction(() => document.querySelectorAll('.policies-table tbody tr').length === 2);
    expect(await order()).toEqual(['Primary escalation', 'Night shift']);
    // Focus the handle, then only keys: ArrowUp moves Night shift first, and focus stays on it.
    await page.focus(`[data-handle="${night.body.id}"]`);
    await page.keyboard.press('ArrowUp');
    await page.waitForFunction(() => document.querySelector('.policies-table tbody th a')?.textContent === 'Night shift', { timeout: 15_000 });
    await page.waitForSelector('[role=status] ::-p-text(Night shift moved to position 1 of 2)');
    await page.waitForFunction((id: number) => document.activeElement?.getAttribute('data-handle') === String(id), {}, night.body.id);
    const priorities = (await t.request<{ items: { name: string; priority: number }[] }>('GET', `/escalation-policies?workspaceId=${owner.workspaceId}`, { token: owner.token }))
      .body.items;
    expect(Object.fromEntries(priorities.map((p) => [p.name, p.priority]))).toEqual({ 'Night shift': 0, 'Primary escalation': 5 });
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => document.querySelector('.policies-table tbody th a')?.textContent === 'Primary escalation', { timeout: 15_000 });

    // The project's two rules are listed; turning them into a policy prefills one step per delay.
    await page.waitForSelector('.legacy-project ::-p-text(After 5 min: Slack ops)');
    await expectAccessible('policies list with legacy rules');
    await screenshot('escalation-policies');
    await clickText('a', 'Turn Default');
    await page.waitForSelector('form[aria-label="New escalation policy"]');
    expect(await page.$eval('input[name=name]', (input) => (input as HTMLInputElement).value)).toBe('Default (from legacy rules)');
    await page.waitForFunction(() => document.querySelectorAll('.preview-steps > li').length === 2, { timeout: 15_000 });
    expect(await previewTargets()).toEqual(['+0 min | Alert channel Ops webhook', '+5 min | Alert channel Slack ops']);
    // The integrations are checkboxes in their own labelled group, beside the projects.
    await page.waitForSelector('fieldset legend ::-p-text(Alerts from integrations)');
    await clickText('label.check-row', 'Prometheus prod');
    expect(await page.$eval(`input[name=integrationIds][value="${prometheus.body.id}"]`, (input) => (input as HTMLInputElement).checked)).toBe(true);
    await expectAccessible('policy editor with integrations');
    await clickText('button', 'Create policy');
    await toast('Created “Default (from legacy rules)”');
    const rules = await t.request<{ total: number }>('GET', `/escalation-rules?projectId=${owner.projectId}`, { token: owner.token });
    expect(rules.body.total).toBe(0);
    const converted = (
      await t.request<{ items: { name: string; projectIds: number[] | null; integrationIds: number[]; steps: unknown[] }[] }>(
        'GET',
        `/escalation-policies?workspaceId=${owner.workspaceId}`,
        {
          token: owner.token,
        },
      )
    ).body.items.find((p) => p.name === 'Default (from legacy rules)');
    expect(converted).toMatchObject({ projectIds: [owner.projectId], integrationIds: [prometheus.body.id] });
    expect(converted?.steps).toHaveLength(2);
    await page.waitForSelector('.legacy ::-p-text(Legacy escalation rules)');
    expect(await page.$('.legacy-project')).toBeNull();
  });

  it('item 3: creates a team and adds a member with the keyboard alone, then removes the member', { timeout: 120_000 }, async () => {
    freshRateWindow(t);
    await go('/teams');
    await page.waitForSelector('form[aria-label="New team"]');
    await expectAccessible('teams list');
    // From here to the added member: keys only.
    await tabTo('form[aria-label="New team"] input[name=name]');
    await page.keyboard.type('Payments on-call');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('description');
    await page.keyboard.type('Owns settlement and payouts');
    await page.keyboard.press('Enter');
    await toast('Team “Payments on-call” created');
    await page.waitForSelector('.teams-table ::-p-text(Payments on-call)');
    await tabTo('.teams-table a[href^="/teams/"]:not([href="/teams/' + ids.team + '"])');
    await page.keyboard.press('Enter');
    await page.waitForSelector('h1 ::-p-text(Payments on-call)');
    await tabTo('#add-member');
    // Chromium changes a closed select's value with the arrow keys: Choose… → the first candidate.
    await page.keyboard.press('ArrowDown');
    const chosen = await page.$eval('#add-member', (select) => (select as HTMLSelectElement).selectedOptions[0]?.textContent ?? '');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Add');
    await page.keyboard.press('Enter');
    await toast(`Added ${chosen.split(' (')[0]}`);
    await page.waitForSelector(`.member-list ::-p-text(${chosen.split(' (')[0]})`);
    await expectAccessible('team detail');
    await screenshot('team-detail');
    const teamId = Number(new URL(page.url()).pathname.split('/')[2]);
    const stored = await t.request<{ members: { userId: number }[] }>('GET', `/teams/${teamId}`, { token: owner.token });
    expect(stored.body.members).toHaveLength(1);
    await clickText('.member-list button', 'Remove');
    await page.waitForSelector('::-p-text(reaches nobody)');
    expect((await t.request<{ members: unknown[] }>('GET', `/teams/${teamId}`, { token: owner.token })).body.members).toHaveLength(0);
  });

  it('item 7: adds a dependency, shows the checks that depend on it, and edits it', { timeout: 120_000 }, async () => {
    freshRateWindow(t);
    await go('/dependencies');
    await page.waitForSelector('section.empty ::-p-text(No dependencies yet)');
    await expectAccessible('empty dependencies list');
    await fill(page, 'form[aria-label="New dependency"] input[name=name]', 'Postgres primary');
    await page.select('form[aria-label="New dependency"] select[name=category]', 'DATABASE');
    await fill(page, 'form[aria-label="New dependency"] input[name=url]', 'https://status.example.com/db');
    await clickText('button', 'Add dependency');
    await toast('Added “Postgres primary”');
    await page.waitForSelector('h1 ::-p-text(Postgres primary)');
    ids.dependency = Number(new URL(page.url()).pathname.split('/')[2]);
    await page.waitForSelector('::-p-text(No check is linked yet)');
    const check = await t.request<{ id: number }>('POST', '/checks', {
      token: owner.token,
      body: { name: 'billing export', projectId: owner.projectId, intervalSeconds: 300, graceSeconds: 30, dependencyIds: [ids.dependency] },
    });
    expect(check.status, check.text).toBe(201);
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.waitForSelector(`.dependency-checks tr[data-check-id="${check.body.id}"] a ::-p-text(billing export)`);
    await fill(page, 'form[aria-label="Edit the dependency"] input[name=description]', 'Main write database');
    await clickText('form[aria-label="Edit the dependency"] button', 'Save');
    await toast('Saved “Postgres primary”');
    await page.waitForSelector('.facts ::-p-text(Main write database)');
    await expectAccessible('dependency detail');
    await screenshot('dependency-detail');
    await go('/dependencies');
    await page.waitForSelector('.dependencies-table ::-p-text(Main write database)');
    await expectAccessible('dependencies list');
    await screenshot('dependencies');
  });

  it('item 9: a VIEWER sees every screen without a control it may not use, and secrets masked', { timeout: 120_000 }, async () => {
    freshRateWindow(t);
    const context: BrowserContext = await browser.createBrowserContext();
    try {
      const viewer = await context.newPage();
      await viewer.setViewport({ width: 1280, height: 900 });
      await signIn(viewer, vera);
      const controls = () =>
        viewer.$$eval('main button, main input, main select, main textarea, main a.button', (els) =>
          els.map((el) => el.textContent?.trim() || el.getAttribute('aria-label') || el.getAttribute('name') || el.tagName),
        );
      const visit = async (path: string, ready: string) => {
        await viewer.goto(`${site.origin}${path}`, { waitUntil: 'domcontentloaded' });
        await viewer.waitForSelector(ready);
      };
      await visit('/channels', '.channels-table');
      expect(await controls()).toEqual([]);
      // Below ADMIN the Slack URL is the origin and the last four characters.
      const shown = await viewer.$eval('.channels-table', (table) => table.textContent ?? '');
      expect(shown).not.toContain('abcdefsecret9876');
      expect(shown).toContain('https://hooks.slack.com');
      await visit('/policies', '.policies-table');
      expect(await controls()).toEqual([]);
      await visit(`/policies/${ids.primary}`, '.preview-steps');
      await viewer.waitForFunction(() => [...document.querySelectorAll('.preview-target')].some((li) => li.textContent === 'On call on Primary: Carol'), { timeout: 15_000 });
      expect(await controls()).toEqual([]);
      await expectAccessible('policy as a viewer', viewer);
      await visit('/teams', '.teams-table');
      expect(await controls()).toEqual([]);
      await visit(`/teams/${ids.team}`, '.member-list');
      expect(await controls()).toEqual([]);
      await visit('/dependencies', '.dependencies-table');
      expect(await controls()).toEqual([]);
      await visit(`/dependencies/${ids.dependency}`, '.dependency-checks');
      expect(await controls()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('item 9: when the API answers 403 anyway (the role was lowered meanwhile), the form says why', { timeout: 120_000 }, async () => {
    freshRateWindow(t);
    const context: BrowserContext = await browser.createBrowserContext();
    try {
      const member = await context.newPage();
      await member.setViewport({ width: 1280, height: 900 });
      await signIn(member, bob);
      // A MEMBER may declare a dependency: the form is there.
      await member.goto(`${site.origin}/dependencies`, { waitUntil: 'domcontentloaded' });
      await member.waitForSelector('form[aria-label="New dependency"]');
      const demoted = await t.request('PATCH', `/workspaces/${owner.workspaceId}/members/${bob.userId}`, { token: owner.token, body: { role: 'VIEWER' } });
      expect(demoted.status, demoted.text).toBe(200);
      await fill(member, 'form[aria-label="New dependency"] input[name=name]', 'Redis');
      await clickText('button', 'Add dependency', member);
      await member.waitForSelector('form[aria-label="New dependency"] [role=alert] ::-p-text(Your role in this workspace does not allow this)');
      await expectAccessible('403 explained', member);
    } finally {
      await context.close();
    }
  });

  it('logged no console error, page error or failed request', () => {
    const unexpected = problems.filter((p) => !(p.startsWith('requestfailed:') && p.endsWith('net::ERR_ABORTED') && noContent.has(new URL(p.split(' ')[1] ?? '').pathname)));
    expect(unexpected).toEqual([]);
  });
});
