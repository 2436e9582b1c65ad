import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { mailTo, startReceiver, type Receiver, type User } from '../../test/support/alerting.js';
import { LONG_SESSIONS } from '../../test/support/checks.js';
import { schedule } from '../../test/support/escalation.js';
import { HOSTILE_STRINGS, inertProblems, mailInertProblems } from '../../test/support/hostile.js';
import { changeStatus, checkComponent, createPage, expectStatus } from '../../test/support/statuspages.js';
import { sweepOnCallNotices } from '../escalation/notices.js';

/**
 * The notices that are not alerts, against the hostile table (test/support/hostile.ts): on-call
 * handoff and coverage-gap mails (a schedule's name), and status page subscriber mail and
 * webhooks (a page's, a component's and an announcement's names), the subscriber's confirmation
 * mail included. Each in every format it is sent in.
 */
let t: TestContext;
let owner: User;
let bob: User;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestContext({ ...LONG_SESSIONS, VIGIL_PROBE_ALLOW_PRIVATE: '1' });
  owner = await t.signup('owner');
  bob = await t.signup('bob');
  expectStatus(await t.request('POST', `/workspaces/${owner.workspaceId}/members`, { token: owner.token, body: { email: bob.email, role: 'MEMBER' } }), 201);
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

describe('on-call notices carry a hostile schedule name inert', { timeout: 180_000 }, () => {
  it('handoff (to the incoming user) and coverage gap (to admins), in the mail subject and text', async () => {
    const problems: string[] = [];
    for (const hostile of HOSTILE_STRINGS) {
      const handoffsBefore = mailTo(t, bob.email).length;
      const gapsBefore = mailTo(t, owner.email).length;
      // Owner on call now, Bob from 2 March 09:00 (told a day ahead), nobody after 4 March 09:00.
      await schedule(t, owner, [owner.userId, bob.userId], owner.workspaceId, { name: hostile.value, handoffNotificationMinutes: 1440, effectiveUntil: '2026-03-04T09:00:00Z' });
      await sweepOnCallNotices(t.deps, t.clock.now());
      const handoffs = mailTo(t, bob.email).slice(handoffsBefore);
      const gaps = mailTo(t, owner.email).slice(gapsBefore);
      if (handoffs.length !== 1 || gaps.length !== 1) problems.push(`${hostile.name}: ${handoffs.length} handoff and ${gaps.length} gap mails, not 1 each`);
      for (const m of handoffs) problems.push(...mailInertProblems(m, hostile, { subject: true, body: true }).map((p) => `${hostile.name} / handoff: ${p}`));
      for (const m of gaps) problems.push(...mailInertProblems(m, hostile, { subject: true, body: true }).map((p) => `${hostile.name} / gap: ${p}`));
    }
    expect(problems).toEqual([]);
  });
});

describe('status page subscriber notices carry hostile page, component and announcement names inert', { timeout: 180_000 }, () => {
  it('confirmation mail, component status change and announcement, by mail and webhook', async () => {
    const problems: string[] = [];
    for (const [n, hostile] of HOSTILE_STRINGS.entries()) {
      const page = await createPage(t, owner, { name: hostile.value });
      const { check } = await checkComponent(t, owner, page.id, { name: hostile.value });
      await changeStatus(t, check, owner, 'NEW', 'OK');
      const email = `subscriber-${n}@example.com`;
      const path = `/subscriber-${n}`;
      const subscribe = (body: Record<string, unknown>) => t.request('POST', `/public/status/${page.slug}/subscribe`, { body, headers: { 'x-test-ip': `192.0.2.${n + 1}` } });
      expectStatus(await subscribe({ channel: 'WEBHOOK', webhookUrl: receiver.url(path) }), 201);
      expectStatus(await subscribe({ channel: 'EMAIL', email }), 202);
      const [confirmation] = mailTo(t, email);
      if (!confirmation) throw new Error(`${hostile.name}: no confirmation mail`);
      problems.push(...mailInertProblems(confirmation, hostile, { subject: true, body: true }).map((p) => `${hostile.name} / confirmation: ${p}`));
      const link = /https?:\/\/\S+\/subscriptions\/confirm\?token=\S+/.exec(confirmation.text)?.[0];
      if (!link) throw new Error(`${hostile.name}: no confirmation link`);
      // The link opens a page whose button POSTs (a mail scanner's GET confirms nothing): press it.
      expectStatus(await t.request('POST', new URL(link).pathname.replace(/^\/api/, '') + new URL(link).search), 200);

      await changeStatus(t, check, owner, 'OK', 'DOWN');
      await t.deps.queue.drain();
      expectStatus(
        await t.request('POST', `/status-pages/${page.id}/announcements`, { token: owner.token, body: { title: hostile.value, body: 'Investigating.', impact: 'MINOR' } }),
        201,
      );
      await t.deps.queue.drain();
      const mails = mailTo(t, email).slice(1);
      const hooks = receiver.at(path);
      if (mails.length !== 2 || hooks.length !== 2) problems.push(`${hostile.name}: ${mails.length} mails and ${hooks.length} webhooks, not 2 each`);
      for (const m of mails) problems.push(...mailInertProblems(m, hostile, { subject: true, body: true }).map((p) => `${hostile.name} / ${m.subject.slice(0, 30)}: ${p}`));
      for (const r of hooks) problems.push(...inertProblems('webhookJson', r.body, hostile).map((p) => `${hostile.name} / webhook: ${p}`));
    }
    expect(problems).toEqual([]);
  });
});
