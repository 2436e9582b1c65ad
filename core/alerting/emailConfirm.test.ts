import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { failNextMail } from '../../test/support/alerting.js';
import { CONFIRMATION_RESEND_LIMIT } from './emailConfirm.js';

type Channel = { id: number; emailConfirmed: boolean };
type Result = { ok: boolean; failureReason: string | null };

let t: TestContext;
let owner: Awaited<ReturnType<TestContext['signup']>>;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_ACCESS_TOKEN_TTL_SECONDS: '86400' });
  owner = await t.signup('confirm-owner');
});
beforeEach(() => t.clock.advanceSeconds(61));

const mailTo = (address: string) => t.deps.mailer.outbox.filter((m) => m.to === address);
const confirmLink = (address: string): string => {
  const match = /https?:\/\/\S+\/api(\/alert-channels\/confirm\/\S+)/.exec(mailTo(address).at(-1)?.text ?? '');
  if (!match?.[1]) throw new Error(`no confirmation link mailed to ${address}`);
  return match[1];
};

describe('e-mail channel confirmation', () => {
  it('mails a confirmation link; until it is followed the address receives no test and no alert', async () => {
    const address = 'someone-else@example.com';
    const created = await t.request<Channel>('POST', '/alert-channels', { token: owner.token, body: { name: 'mail', type: 'EMAIL', config: { email: address } } });
    expect(created.status).toBe(201);
    expect(created.body.emailConfirmed).toBe(false);
    expect(mailTo(address)).toHaveLength(1);
    const test = await t.request<Result>('POST', `/alert-channels/${created.body.id}/test`, { token: owner.token });
    expect(test.body).toMatchObject({ ok: false, failureReason: 'EMAIL_UNCONFIRMED' });
    expect(mailTo(address)).toHaveLength(1);

    const link = confirmLink(address);
    expectError(await t.request('POST', `${link.slice(0, -3)}xyz`), 404);
    expect((await t.request('POST', link)).status).toBe(200);
    const after = await t.request<Channel>('GET', `/alert-channels/${created.body.id}`, { token: owner.token });
    expect(after.body.emailConfirmed).toBe(true);
    expect((await t.request<Result>('POST', `/alert-channels/${created.body.id}/test`, { token: owner.token })).body.ok).toBe(true);
    expect(mailTo(address)).toHaveLength(2);
  });

  it('asks again when the address changes', async () => {
    const created = await t.request<Channel>('POST', '/alert-channels', { token: owner.token, body: { name: 'mail2', type: 'EMAIL', config: { email: 'first@example.com' } } });
    expect((await t.request('POST', confirmLink('first@example.com'))).status).toBe(200);
    const changed = await t.request<Channel>('PATCH', `/alert-channels/${created.body.id}`, { token: owner.token, body: { config: { email: 'second@example.com' } } });
    expect(changed.body.emailConfirmed).toBe(false);
    expect(mailTo('second@example.com')).toHaveLength(1);
    expect((await t.request<Result>('POST', `/alert-channels/${created.body.id}/test`, { token: owner.token })).body.failureReason).toBe('EMAIL_UNCONFIRMED');
  });

  it('a link whose mail failed: the create is taken back, and a PATCH naming an unconfirmed address mails a fresh link', async () => {
    const address = 'retry@example.com';
    const named = async () => (await t.request<{ name: string }[]>('GET', '/alert-channels', { token: owner.token })).body.filter((c) => c.name === 'retry');

    // The create's mail fails: the request fails with it and leaves no channel behind; the retry makes one.
    failNextMail(t);
    const refused = await t.request('POST', '/alert-channels', { token: owner.token, body: { name: 'retry', type: 'EMAIL', config: { email: address } } });
    expect(expectError(refused, 503, 'MAIL_UNAVAILABLE').message).toMatch(/send the same request again/);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await named()).toEqual([]);
    const created = await t.request<Channel>('POST', '/alert-channels', { token: owner.token, body: { name: 'retry', type: 'EMAIL', config: { email: address } } });
    expect(created.status).toBe(201);
    expect(await named()).toHaveLength(1);
    expect(mailTo(address)).toHaveLength(1);

    // A PATCH naming the same, still unconfirmed address mails a fresh link (its mail failing once, then on the retry); the old link is void.
    const first = confirmLink(address);
    failNextMail(t);
    expectError(await t.request('PATCH', `/alert-channels/${created.body.id}`, { token: owner.token, body: { config: { email: address } } }), 503, 'MAIL_UNAVAILABLE');
    expect(mailTo(address)).toHaveLength(1);
    expect((await t.request('PATCH', `/alert-channels/${created.body.id}`, { token: owner.token, body: { config: { email: address } } })).status).toBe(200);
    expect(mailTo(address)).toHaveLength(2);
    expectError(await t.request('POST', first), 404);
    expect((await t.request('POST', confirmLink(address))).status).toBe(200);

    // Confirmed, the same address named again mails nothing.
    expect((await t.request('PATCH', `/alert-channels/${created.body.id}`, { token: owner.token, body: { config: { email: address } } })).status).toBe(200);
    expect(mailTo(address)).toHaveLength(2);
  });

  it('a PATCH that mails the link again is throttled like a test send: 5 per channel per hour, then 429 that changes nothing', async () => {
    const address = `throttle-${Date.now()}@example.com`;
    const created = await t.request<Channel>('POST', '/alert-channels', { token: owner.token, body: { name: 'throttle', type: 'EMAIL', config: { email: address } } });
    expect(created.status).toBe(201);
    const patch = (body: Record<string, unknown>) => t.request<Channel & { name: string }>('PATCH', `/alert-channels/${created.body.id}`, { token: owner.token, body });
    for (let i = 0; i < CONFIRMATION_RESEND_LIMIT.limit; i++) expect((await patch({ config: { email: address } })).status).toBe(200);
    expect(mailTo(address)).toHaveLength(1 + CONFIRMATION_RESEND_LIMIT.limit);
    const refused = await patch({ name: 'renamed', config: { email: address } });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(mailTo(address)).toHaveLength(1 + CONFIRMATION_RESEND_LIMIT.limit);
    expect((await t.request<{ name: string }>('GET', `/alert-channels/${created.body.id}`, { token: owner.token })).body.name).toBe('throttle');
    // A PATCH that mails nothing is not counted; the next window mails again.
    expect((await patch({ name: 'renamed' })).status).toBe(200);
    t.clock.advanceSeconds(CONFIRMATION_RESEND_LIMIT.windowSeconds);
    expect((await patch({ config: { email: address } })).status).toBe(200);
    expect(mailTo(address)).toHaveLength(2 + CONFIRMATION_RESEND_LIMIT.limit);
  });
});
