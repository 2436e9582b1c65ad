import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createCheck } from '../../test/support/incidents.js';
import type { WarningAlertMessage } from './alertContent.js';
import { handleAlertMessages } from '../escalation/dispatch.js';
import { createChannel, emailChannel, mailTo, startReceiver, type Receiver, type User } from '../../test/support/alerting.js';
import { SENT_MARKER_TTL_SECONDS } from './warningDispatch.js';
import { verifyWebhook } from './webhookSignature.js';

/** Latency and SSL-expiry warnings published on the `alerts` queue (core/probes/warnings.ts). */
let t: TestContext;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1' });
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

type Check = { id: number; name: string };

async function workspace(name: string, checkFields: Record<string, unknown> = {}): Promise<{ user: User; key: string; check: Check }> {
  const user = await t.signup(name);
  const key = await t.apiKey(user);
  const check = await createCheck(t, user, { name: `${name} check`, ...checkFields });
  return { user, key, check };
}

const latency = (user: User, check: Check, extra: Partial<WarningAlertMessage> = {}): WarningAlertMessage =>
  ({
    type: 'check.latency_warning',
    checkId: check.id,
    workspaceId: user.workspaceId,
    projectId: user.projectId,
    region: 'eu-west-1',
    latencyMs: 1_234,
    thresholdMs: 500,
    at: t.clock.now().toISOString(),
    ...extra,
  }) as WarningAlertMessage;

const sslExpiry = (user: User, check: Check): WarningAlertMessage => ({
  type: 'check.ssl_expiry_warning',
  checkId: check.id,
  workspaceId: user.workspaceId,
  projectId: user.projectId,
  region: 'us-east-1',
  sslExpiresAt: new Date(t.clock.now().getTime() + 3.5 * 86_400_000).toISOString(),
  daysLeft: 3,
  thresholdDays: 14,
  at: t.clock.now().toISOString(),
});

const handle = (id: string, body: unknown) => handleAlertMessages(t.deps, [{ id, body }]);
const done = { failedIds: [], retryAfterSeconds: {} };

let paths = 0;
async function webhook(user: User): Promise<{ path: string; secret: string }> {
  const path = `/warn-${++paths}`;
  const channel = await createChannel(t, user, { type: 'WEBHOOK', config: { url: receiver.url(path) } });
  if (!channel.secret) throw new Error('a webhook channel is created with its secret');
  return { path, secret: channel.secret };
}

describe('warning alerts: delivery', () => {
  it('mails a latency warning once to every enabled channel of the check workspace, however often it comes', async () => {
    const { user, check } = await workspace('slow');
    const first = await emailChannel(t, user);
    const second = await emailChannel(t, user);
    const disabled = await emailChannel(t, user);
    expect((await t.request('PATCH', `/alert-channels/${disabled.id}`, { token: user.token, body: { enabled: false } })).status).toBe(200);
    const stranger = await workspace('bystander');
    const foreign = await emailChannel(t, stranger.user);

    const warning = latency(user, check);
    await t.deps.queue.publish('alerts', [warning, warning]);
    await t.deps.queue.drain();
    expect(await handle('again', warning)).toEqual(done);

    for (const channel of [first, second]) {
      const mail = mailTo(t, channel.email);
      expect(mail.map((m) => m.subject)).toEqual([`[Warning] Slow response: ${check.name} took 1234 ms`]);
      expect(mail[0]?.text).toContain(`Check "${check.name}" answered in 1234 ms from eu-west-1, above its latency warning threshold of 500 ms.`);
    }
    expect(mailTo(t, disabled.email)).toEqual([]);
    expect(mailTo(t, foreign.email)).toEqual([]);
    expect(t.deps.queue.deadLetters.alerts ?? []).toEqual([]);

    // The sent marker of each delivery, with its TTL.
    const marker = await t.deps.store.entities.alertSent.get({ deliveryKey: `alert#check${check.id}#check.latency_warning#${warning.at}#${first.id}` }).go();
    expect(marker.data).toMatchObject({ channelId: first.id, event: 'check.latency_warning', expiresAt: Math.floor(t.clock.now().getTime() / 1000) + SENT_MARKER_TTL_SECONDS });

    // The next hour's warning is a new alert.
    t.clock.advanceSeconds(3_601);
    await handle('next-hour', latency(user, check, { latencyMs: 2_000 }));
    expect(mailTo(t, first.email).map((m) => m.subject)).toEqual([`[Warning] Slow response: ${check.name} took 1234 ms`, `[Warning] Slow response: ${check.name} took 2000 ms`]);
  });

  it('sends once when workers handle copies at the same moment; the losers retry and find it sent', async () => {
    const { user, check } = await workspace('race');
    const { email } = await emailChannel(t, user);
    const warning = sslExpiry(user, check);
    const results = await Promise.all([0, 1, 2].map((n) => handle(`copy-${n}`, warning)));
    expect(mailTo(t, email)).toHaveLength(1);
    for (const id of results.flatMap((r) => r.failedIds)) expect(await handle(id, warning)).toEqual(done);
    expect(mailTo(t, email).map((m) => m.subject)).toEqual([`[Warning] TLS certificate expires in 3 days: ${check.name}`]);
    expect(mailTo(t, email)[0]?.text).toContain(`expires at ${(warning as { sslExpiresAt: string }).sslExpiresAt} (in 3 days), within its warning window of 14 days`);
  });

  it('posts signed webhooks typed check.latency_warning and check.ssl_expiry_warning, retrying a failure with the same id', async () => {
    const { user, check } = await workspace('hooks');
    const { path, secret } = await webhook(user);
    const slow = latency(user, check);
    const cert = sslExpiry(user, check);
    receiver.answer(path, { status: 500 });
    expect(await handle('slow', slow)).toEqual({ failedIds: ['slow'], retryAfterSeconds: {} });
    expect(await handle('slow', slow)).toEqual(done);
    expect(await handle('slow', slow)).toEqual(done);
    expect(await handle('cert', cert)).toEqual(done);

    const [failed, slowSent, certSent] = receiver.at(path);
    expect(receiver.at(path)).toHaveLength(3);
    expect(slowSent?.headers['webhook-id']).toBe(failed?.headers['webhook-id']);
    expect(certSent?.headers['webhook-id']).not.toBe(slowSent?.headers['webhook-id']);
    for (const request of [slowSent!, certSent!]) {
      const headers = {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      };
      expect(verifyWebhook(secret, headers, request.body, Math.floor(t.clock.now().getTime() / 1000))).toBe(true);
    }
    expect(JSON.parse(slowSent!.body)).toEqual({
      type: 'check.latency_warning',
      timestamp: t.clock.now().toISOString(),
      data: { check: { id: check.id, name: check.name }, projectId: user.projectId, region: 'eu-west-1', occurredAt: slow.at, latencyMs: 1_234, thresholdMs: 500 },
    });
    expect(JSON.parse(certSent!.body)).toMatchObject({
      type: 'check.ssl_expiry_warning',
      data: { check: { id: check.id }, region: 'us-east-1', sslExpiresAt: (cert as { sslExpiresAt: string }).sslExpiresAt, daysLeft: 3, thresholdDays: 14 },
    });
  });
});

describe('warning alerts: silence', () => {
  it('sends nothing for a muted check', async () => {
    const { user, check } = await workspace('muted', { muteNotifications: true });
    const { email } = await emailChannel(t, user);
    expect(await handle('slow', latency(user, check))).toEqual(done);
    expect(await handle('cert', sslExpiry(user, check))).toEqual(done);
    expect(mailTo(t, email)).toEqual([]);

    // Unmuted, the same warning is heard.
    expect((await t.request('PATCH', `/checks/${check.id}`, { token: user.token, body: { muteNotifications: false } })).status).toBe(200);
    expect(await handle('slow', latency(user, check))).toEqual(done);
    expect(mailTo(t, email)).toHaveLength(1);
  });

  it('sends nothing while a maintenance window suppresses alerts on the project at the warning time, even redelivered after it', async () => {
    const { user, key, check } = await workspace('maintenance');
    const { email } = await emailChannel(t, user);
    const window = await t.request('POST', '/v1/maintenance-windows', {
      token: key,
      body: { name: 'cdn swap', endAt: new Date(t.clock.now().getTime() + 3_600_000).toISOString(), projectIds: [user.projectId], suppressIncidents: false },
    });
    expect(window.status, window.text).toBe(201);
    const during = latency(user, check);
    expect(await handle('during', during)).toEqual(done);
    expect(mailTo(t, email)).toEqual([]);

    t.clock.advanceSeconds(3_601);
    expect(await handle('during-again', during)).toEqual(done);
    expect(mailTo(t, email)).toEqual([]);
    await handle('after', latency(user, check));
    expect(mailTo(t, email)).toHaveLength(1);
  });

  it('drops malformed warnings and warnings about checks that do not exist, live elsewhere or were deleted', async () => {
    const { user, check } = await workspace('poison');
    const { email } = await emailChannel(t, user);
    const stranger = await workspace('elsewhere');
    const deleted = await createCheck(t, user);
    expect((await t.request('DELETE', `/checks/${deleted.id}`, { token: user.token })).status).toBe(204);
    const bodies = [
      { ...latency(user, check), latencyMs: 'slow' },
      { ...latency(user, check), at: 'an hour ago' },
      { ...sslExpiry(user, check), daysLeft: undefined },
      latency(user, { ...check, id: 987_654 }),
      latency(stranger.user, check),
      latency(user, deleted),
    ];
    const result = await handleAlertMessages(
      t.deps,
      bodies.map((body, n) => ({ id: `bad-${n}`, body })),
    );
    expect(result).toEqual(done);
    expect(mailTo(t, email)).toEqual([]);
  });
});
