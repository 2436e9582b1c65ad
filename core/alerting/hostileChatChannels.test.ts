import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import type { User } from '../../test/support/alerting.js';
import { CHAT_TYPES, chatConfig, chatInertProblems, startChatReceiver, type ChatReceiver } from '../../test/support/chatChannels.js';
import { HOSTILE_STRINGS, type HostileString } from '../../test/support/hostile.js';
import { handleAlertMessages } from '../escalation/dispatch.js';
import { testAlertChannel } from './channelsDelivery.js';

/**
 * The hostile-string table (test/support/hostile.ts) against each chat and push format: Teams'
 * Adaptive Card, Discord's embed, ntfy's JSON publish, Telegram's HTML. Tenant text sits in the
 * channel's name, an incident's title and description; each delivery must arrive inert (no
 * Markdown, HTML, mention or link of the tenant's making) and still readable.
 */
let t: TestContext;
let receiver: ChatReceiver;
beforeAll(async () => {
  t = await createTestContext();
  receiver = await startChatReceiver();
  t.deps.queue.consume('alerts', (messages) => handleAlertMessages(t.deps, messages, { outbound: receiver.outbound }));
});
afterAll(() => receiver.close());

type Workspace = { hostile: HostileString; n: number; user: User; key: string; channelIds: number[]; seen: number };

async function workspace(hostile: HostileString, n: number): Promise<Workspace> {
  const user = await t.signup(`hostile-chat${n}`);
  const channelIds: number[] = [];
  for (const type of CHAT_TYPES) {
    const res = await t.request<{ id: number }>('POST', '/alert-channels', {
      token: user.token,
      body: { workspaceId: user.workspaceId, name: hostile.value, type, config: chatConfig(type, 1000 + n) },
    });
    expect(res.status, res.text).toBe(201);
    channelIds.push(res.body.id);
  }
  return { hostile, n, user, key: await t.apiKey(user), channelIds, seen: 0 };
}

let all: Workspace[] = [];
beforeAll(async () => {
  all = await Promise.all(HOSTILE_STRINGS.map((h, n) => workspace(h, n)));
}, 180_000);

/** What each workspace's four channels received since the last look: `count` each, all inert and readable. */
function look(kind: string, count: number): string[] {
  const problems: string[] = [];
  for (const w of all) {
    for (const type of CHAT_TYPES) {
      const requests = receiver.at(type, 1000 + w.n).slice(w.seen);
      if (requests.length !== count) problems.push(`${w.hostile.name} / ${kind} / ${type}: ${requests.length} deliveries, not ${count}`);
      for (const request of requests) problems.push(...chatInertProblems(request, w.hostile).map((p) => `${w.hostile.name} / ${kind} / ${type}: ${p}`));
    }
    w.seen += count;
  }
  return problems;
}

const each = <T>(fn: (w: Workspace) => Promise<T>) => Promise.all(all.map(fn));

describe('tenant text from the hostile table arrives inert and readable in Teams, Discord, ntfy and Telegram', { timeout: 180_000 }, () => {
  it('channel test sends name the channel', async () => {
    await each(async (w) => {
      const actor = { kind: 'user' as const, userId: w.user.userId, email: w.user.email };
      for (const id of w.channelIds) expect((await testAlertChannel({ deps: t.deps, actor }, id, receiver.outbound)).ok).toBe(true);
    });
    expect(look('channel test', 1)).toEqual([]);
  });

  it('incident opened, acknowledged and resolved carry a declared title and description', async () => {
    const ids = await each(async (w) => {
      const declared = await t.request<{ id: number }>('POST', '/v1/incidents', { token: w.key, body: { title: w.hostile.value, description: w.hostile.value, severity: 'P1' } });
      expect(declared.status, declared.text).toBe(201);
      return declared.body.id;
    });
    await t.deps.queue.drain();
    const problems = look('incident opened', 1);
    for (const action of ['acknowledge', 'resolve']) {
      await each(async (w) => expect((await t.request('POST', `/incidents/${ids[all.indexOf(w)]}/${action}`, { token: w.user.token })).status).toBe(200));
      await t.deps.queue.drain();
      problems.push(...look(`incident ${action}d`, 1));
    }
    expect(problems).toEqual([]);
  });

  it("latency and certificate warnings carry the check's name", async () => {
    await each(async (w) => {
      const job = await t.request<{ id: number }>('POST', '/v1/jobs', {
        token: w.key,
        body: { name: w.hostile.value, projectId: w.user.projectId, intervalSeconds: 60, graceSeconds: 60 },
      });
      expect(job.status, job.text).toBe(201);
      const about = { checkId: job.body.id, workspaceId: w.user.workspaceId, projectId: w.user.projectId, at: t.clock.now().toISOString() };
      await t.deps.queue.publish('alerts', [
        { type: 'check.latency_warning', ...about, region: 'eu-west-1', latencyMs: 2500, thresholdMs: 1000 },
        { type: 'check.ssl_expiry_warning', ...about, region: 'eu-west-1', sslExpiresAt: '2026-03-10T00:00:00.000Z', daysLeft: 8, thresholdDays: 14 },
      ]);
    });
    await t.deps.queue.drain();
    expect(look('warnings', 2)).toEqual([]);
  });
});
