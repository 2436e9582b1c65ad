import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { confirmAddress, mailTo, type User } from '../../test/support/alerting.js';
import { HOSTILE_STRINGS, inertProblems, mailInertProblems, type HostileString } from '../../test/support/hostile.js';
import { fakeResolver, startLoopbackTlsServer, toLoopback, type LoopbackServer } from '../../test/support/outbound.js';
import { TEST_CERT_PEM, TEST_KEY_PEM } from '../../test/support/tlsFixture.js';
import { handleAlertMessages } from '../escalation/dispatch.js';
import { createNodeConnect, type GuardedRequestDeps } from '../outbound/index.js';
import { runSweep } from '../sweep/index.js';
import { testAlertChannel } from './channelsDelivery.js';

/**
 * Every alert kind a workspace's channels receive, with tenant text from the hostile table
 * (test/support/hostile.ts) in every place a tenant can put it: channel names, incident titles
 * and descriptions, check names, a dependency name in a ping payload. Each message is checked
 * in each format it is sent in: the mail's subject and text, Slack's mrkdwn `text`, the
 * webhook's JSON. Slack and webhook requests reach a loopback TLS server through the injected
 * resolver and connector, so nothing leaves the machine.
 */
let t: TestContext;
let server: LoopbackServer;
let outbound: GuardedRequestDeps;
beforeAll(async () => {
  t = await createTestContext();
  server = await startLoopbackTlsServer(TEST_CERT_PEM, TEST_KEY_PEM, (_req, res) => res.end('ok'));
  outbound = { resolve: fakeResolver({ 'vigil-tls.test': ['93.184.216.34'] }).resolve, connect: toLoopback(server.port, createNodeConnect({ ca: TEST_CERT_PEM })) };
  // The runtime's alerts consumer, with the outbound seams injected.
  t.deps.queue.consume('alerts', (messages) => handleAlertMessages(t.deps, messages, { outbound }));
});
afterAll(() => server.close());

type Carries = { subject: boolean; body: boolean };
const EVERYWHERE: Carries = { subject: true, body: true };

/** One workspace per hostile string, with an e-mail, a Slack and a webhook channel, all named with it. */
type Workspace = Awaited<ReturnType<typeof workspace>>;
async function workspace(hostile: HostileString, n: number) {
  const user: User = await t.signup(`hostile${n}`);
  const key = await t.apiKey(user);
  const email = `hostile-${n}@example.com`;
  const create = async (type: string, config: Record<string, string>) => {
    const res = await t.request<{ id: number }>('POST', '/alert-channels', { token: user.token, body: { workspaceId: user.workspaceId, name: hostile.value, type, config } });
    expect(res.status, res.text).toBe(201);
    return res.body.id;
  };
  const channelIds = [
    await create('EMAIL', { email }),
    await create('SLACK', { webhookUrl: `https://vigil-tls.test/slack-${n}` }),
    await create('WEBHOOK', { url: `https://vigil-tls.test/hook-${n}` }),
  ];
  return { hostile, user, key, email, channelIds, slackPath: `/slack-${n}`, hookPath: `/hook-${n}`, seen: { mails: 0, slacks: 0, hooks: 0 }, job: { id: 0, token: '' } };
}

let all: Workspace[] = [];
beforeAll(async () => {
  all = await Promise.all(HOSTILE_STRINGS.map((h, n) => workspace(h, n)));
}, 180_000);

/**
 * What each workspace received since the last look, all of it about `kind`: each channel got
 * `count` messages, each inert and readable in its format. Problems are named by string and kind.
 */
function look(kind: string, count: number, mail: Carries): string[] {
  const problems: string[] = [];
  for (const w of all) {
    const newMail = mailTo(t, w.email).slice(w.seen.mails);
    const newSlack = server.requests.filter((r) => r.url === w.slackPath).slice(w.seen.slacks);
    const newHooks = server.requests.filter((r) => r.url === w.hookPath).slice(w.seen.hooks);
    w.seen = { mails: w.seen.mails + newMail.length, slacks: w.seen.slacks + newSlack.length, hooks: w.seen.hooks + newHooks.length };
    const at = (format: string) => (p: string) => `${w.hostile.name} / ${kind} / ${format}: ${p}`;
    if (newMail.length !== count || newSlack.length !== count || newHooks.length !== count) {
      problems.push(`${w.hostile.name} / ${kind}: ${newMail.length} mails, ${newSlack.length} Slack messages, ${newHooks.length} webhooks, not ${count} each`);
    }
    for (const m of newMail) problems.push(...mailInertProblems(m, w.hostile, mail).map(at('mail')));
    for (const r of newSlack) problems.push(...inertProblems('slack', (JSON.parse(r.body) as { text: string }).text, w.hostile).map(at('slack')));
    for (const r of newHooks) problems.push(...inertProblems('webhookJson', r.body, w.hostile).map(at('webhook')));
  }
  return problems;
}

const each = <T>(fn: (w: Workspace) => Promise<T>) => Promise.all(all.map(fn));

// Fifteen workspaces per step, on a machine shared with other runs.
describe('tenant text from the hostile table arrives inert and readable in every alert kind and format', { timeout: 180_000 }, () => {
  it('e-mail confirmation mails name the channel', async () => {
    const problems = all.flatMap((w) => {
      const mails = mailTo(t, w.email);
      if (mails.length !== 1) return [`${w.hostile.name}: ${mails.length} confirmation mails`];
      return mailInertProblems(mails[0]!, w.hostile, { subject: false, body: true }).map((p) => `${w.hostile.name} / confirmation: ${p}`);
    });
    // One at a time: the helper takes the mail it followed out of the shared outbox by index.
    for (const w of all) await confirmAddress(t, w.email);
    expect(problems).toEqual([]);
  });

  it('channel test sends name the channel (mail, Slack, webhook)', async () => {
    await each(async (w) => {
      const actor = { kind: 'user' as const, userId: w.user.userId, email: w.user.email };
      for (const id of w.channelIds) expect((await testAlertChannel({ deps: t.deps, actor }, id, outbound)).ok).toBe(true);
    });
    expect(look('channel test', 1, { subject: false, body: true })).toEqual([]);
  });

  it('incident opened, acknowledged and resolved carry a declared title and description', async () => {
    const ids = await each(async (w) => {
      const declared = await t.request<{ id: number }>('POST', '/v1/incidents', { token: w.key, body: { title: w.hostile.value, description: w.hostile.value, severity: 'P2' } });
      expect(declared.status, declared.text).toBe(201);
      return declared.body.id;
    });
    await t.deps.queue.drain();
    const problems = look('incident opened', 1, EVERYWHERE);
    for (const action of ['acknowledge', 'resolve']) {
      await each(async (w) => expect((await t.request('POST', `/incidents/${ids[all.indexOf(w)]}/${action}`, { token: w.user.token })).status).toBe(200));
      await t.deps.queue.drain();
      problems.push(...look(`incident ${action}d`, 1, EVERYWHERE));
    }
    expect(problems).toEqual([]);
  });

  it("check status changes carry the check's name: late opens an incident, down raises its severity, up resolves it", async () => {
    await each(async (w) => {
      const job = await t.request<{ id: number; token: string }>('POST', '/v1/jobs', {
        token: w.key,
        body: { name: w.hostile.value, projectId: w.user.projectId, intervalSeconds: 60, graceSeconds: 60 },
      });
      expect(job.status, job.text).toBe(201);
      w.job = job.body;
      await t.request('GET', `/signals/ping/${job.body.token}`);
    });
    await t.deps.queue.drain();
    t.clock.advanceSeconds(121);
    await runSweep(t.deps);
    await t.deps.queue.drain();
    const problems = look('late: incident opened', 1, EVERYWHERE);
    t.clock.advanceSeconds(60);
    await runSweep(t.deps);
    await t.deps.queue.drain();
    problems.push(...look('down: severity raised', 1, EVERYWHERE));
    await each((w) => t.request('GET', `/signals/ping/${w.job.token}`));
    await t.deps.queue.drain();
    problems.push(...look('up: incident resolved', 1, EVERYWHERE));
    expect(problems).toEqual([]);
  });

  it("a dependency's name from a ping payload, reported down", async () => {
    t.clock.advanceSeconds(10);
    await each((w) => t.request('POST', `/signals/ping/${w.job.token}`, { body: { dependencies: [{ name: w.hostile.value, status: 'down' }] } }));
    await t.deps.queue.drain();
    expect(look('dependency down: incident opened', 1, EVERYWHERE)).toEqual([]);
  });

  it("latency, certificate and too-often warnings carry the check's name", async () => {
    await each(async (w) => {
      const about = { checkId: w.job.id, workspaceId: w.user.workspaceId, projectId: w.user.projectId, at: t.clock.now().toISOString() };
      await t.deps.queue.publish('alerts', [
        { type: 'check.latency_warning', ...about, region: 'eu-west-1', latencyMs: 2500, thresholdMs: 1000 },
        { type: 'check.ssl_expiry_warning', ...about, region: 'eu-west-1', sslExpiresAt: '2026-03-10T00:00:00.000Z', daysLeft: 8, thresholdDays: 14 },
        { type: 'check.too_frequent', ...about, region: 'heartbeat', sinceSeconds: 5, minIntervalSeconds: 30 },
      ]);
    });
    await t.deps.queue.drain();
    expect(look('latency, certificate and too-often warnings', 3, EVERYWHERE)).toEqual([]);
  });
});
