import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { LONG_SESSIONS } from '../../test/support/checks.js';
import { createPage, type User } from '../../test/support/statuspages.js';
import { handleAlertMessages } from '../escalation/dispatch.js';

/**
 * A page's subscribers hear nothing more once the page stops being open to them (issue 29 item
 * 5): turned PRIVATE, disabled, or given a new password after they came. The page changes go
 * over HTTP; each delivery goes through the alerts queue's consumer, as the fan-out sends it.
 */
let t: TestContext;
let owner: User;
let n = 0;

beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  owner = await t.signup('gate-owner');
});

/** An ACTIVE e-mail subscriber as a confirmed subscription leaves it (the subscribe flow has its own tests). */
async function subscriber(statusPageId: number): Promise<{ id: number; email: string }> {
  const email = `gate-${++n}@example.com`;
  const created = await t.deps.store.entities.statusSubscriber
    .create({
      subscriberId: await t.deps.store.nextId('statusSubscriber'),
      statusPageId,
      workspaceId: owner.workspaceId,
      channel: 'EMAIL',
      state: 'ACTIVE',
      email,
      componentIds: [],
      unsubscribeKey: `gate-key-${n}-${Date.now()}`,
      confirmedAt: t.clock.now().toISOString(),
      createdAt: t.clock.now().toISOString(),
    })
    .go();
  return { id: created.data.subscriberId, email };
}

/** Hands one `statuspage.deliver` to the consumer; answers how many mails reached `email`. */
async function deliver(page: { id: number; name: string; slug: string }, to: { id: number; email: string }): Promise<number> {
  const before = t.deps.mailer.outbox.filter((mail) => mail.to === to.email).length;
  const result = await handleAlertMessages(t.deps, [
    {
      id: `gate-${++n}`,
      body: {
        type: 'statuspage.deliver',
        subscriberId: to.id,
        statusPageId: page.id,
        workspaceId: owner.workspaceId,
        eventKey: `${page.id}:gate:${n}`,
        pageName: page.name,
        slug: page.slug,
        summary: 'API is now a major outage',
        notice: 'component.status_changed',
        componentIds: [],
        data: {},
        at: t.clock.now().toISOString(),
      },
    },
  ]);
  expect(result.failedIds).toEqual([]);
  return t.deps.mailer.outbox.filter((mail) => mail.to === to.email).length - before;
}

const patch = async (pageId: number, body: Record<string, unknown>) => {
  t.clock.advanceSeconds(1);
  expect((await t.request('PATCH', `/status-pages/${pageId}`, { token: owner.token, body })).status).toBe(200);
  t.clock.advanceSeconds(1);
};

describe('subscriber deliveries follow the page’s access', () => {
  it('stop when the page turns PRIVATE, and go again when it is PUBLIC again', async () => {
    const page = await createPage(t, owner);
    const mailbox = await subscriber(page.id);
    expect(await deliver(page, mailbox)).toBe(1);
    await patch(page.id, { visibility: 'PRIVATE' });
    expect(await deliver(page, mailbox)).toBe(0);
    await patch(page.id, { visibility: 'PUBLIC' });
    expect(await deliver(page, mailbox)).toBe(1);
  });

  it('stop when the page is disabled', async () => {
    const page = await createPage(t, owner);
    const mailbox = await subscriber(page.id);
    await patch(page.id, { enabled: false });
    expect(await deliver(page, mailbox)).toBe(0);
  });

  it('stop for subscribers who came before a new password; those who came after it still hear', async () => {
    const page = await createPage(t, owner);
    const early = await subscriber(page.id);
    await patch(page.id, { visibility: 'PASSWORD_PROTECTED', password: 'a page password 1' });
    const late = await subscriber(page.id);
    expect(await deliver(page, early)).toBe(0);
    expect(await deliver(page, late)).toBe(1);
    await patch(page.id, { password: 'another page password 2' });
    expect(await deliver(page, late)).toBe(0);
  });
});
