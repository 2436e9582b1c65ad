import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createChannel, startReceiver, timeline, type Receiver } from '../../test/support/alerting.js';
import { LONG_SESSIONS } from '../../test/support/checks.js';
import { createJob } from '../../test/support/signals.js';
import type { Store } from '../store/service.js';
import { sweepHeartbeats } from '../sweep/index.js';

/**
 * What one flip costs in store requests, counted by request and entity (as the bench's mass outage
 * does, bench/stepMeter.ts): a job goes LATE, then DOWN, its incident opens and is raised, and the
 * policy's step 0 webhook hears the opening and the raise. A mass outage is thousands of these at
 * once, and each request costs the store client and the embedded store most of a millisecond of
 * CPU, so a read that only repeats what the handler already holds is a cost worth a test.
 */
let t: TestContext;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1', ...LONG_SESSIONS });
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

type Attr = { S?: string } | string | undefined;
const text = (value: Attr): string => (typeof value === 'string' ? value : (value?.S ?? ''));
const entityOf = (key: Record<string, Attr>): string => /^\$([A-Za-z]+)_\d/.exec(text(key.sk))?.[1] ?? '?';

/** Requests to the table from now on, as `<command> <entity>` (a query by the entity its key values name). */
function meter(store: Pick<Store, 'client' | 'hot'>): { counts: Map<string, number>; stop(): void } {
  const name = `flip-${Math.random().toString(36).slice(2)}`;
  const counts = new Map<string, number>();
  const stacks = [store.client.middlewareStack, store.hot.middlewareStack];
  for (const stack of stacks) {
    stack.add(
      (next, context) => async (args) => {
        const command = context.commandName?.replace(/Command$/, '') ?? '?';
        const input = args.input as { Key?: Record<string, Attr>; Item?: Record<string, Attr>; ExpressionAttributeValues?: Record<string, unknown> };
        const key = input.Item ?? input.Key;
        const values = Object.values(input.ExpressionAttributeValues ?? {})
          .map((value) => text(value as Attr))
          .join(' ');
        const row = key ? `${command} ${entityOf(key)}` : `${command} ${/\$([A-Za-z]+)_/.exec(values)?.[1] ?? '?'}`;
        counts.set(row, (counts.get(row) ?? 0) + 1);
        return next(args);
      },
      { step: 'initialize', name },
    );
  }
  return { counts, stop: () => stacks.forEach((stack) => stack.remove(name)) };
}

describe('the store requests of one flip', { timeout: 60_000 }, () => {
  it('LATE, DOWN, the incident and its step 0 alerts read nothing twice', async () => {
    const user = await t.signup('flip');
    const key = await t.apiKey(user);
    const path = `/${Math.random().toString(36).slice(2)}`;
    const channel = await createChannel(t, user, { type: 'WEBHOOK', config: { url: receiver.url(path) } });
    const policy = await t.request('POST', '/escalation-policies', {
      token: user.token,
      body: {
        workspaceId: user.workspaceId,
        name: 'flip',
        priority: 0,
        projectIds: null,
        steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId: channel.id }] }],
      },
    });
    expect(policy.status, policy.text).toBe(201);
    const job = await createJob(t, user, key, { intervalSeconds: 60, graceSeconds: 30 });
    expect((await t.request('GET', `/signals/ping/${job.token}`)).status).toBe(200);
    await t.deps.queue.drain();

    const requests = meter(t.deps.store);
    try {
      t.clock.advanceSeconds(91);
      await sweepHeartbeats(t.deps, t.clock.now());
      await t.deps.queue.drain();
      t.clock.advanceSeconds(30);
      await sweepHeartbeats(t.deps, t.clock.now());
      await t.deps.queue.drain();
    } finally {
      requests.stop();
    }

    // The flip happened whole: opened, raised to the down severity, both told to step 0's webhook.
    expect(receiver.at(path).map((r) => (JSON.parse(r.body) as { type: string }).type)).toEqual(['incident.opened', 'incident.severity_changed']);
    const incidents = await t.request<{ items: { id: number; title: string }[] }>('GET', `/incidents?workspaceId=${user.workspaceId}`, { token: user.token });
    const [incident] = incidents.body.items;
    expect(incident?.title).toMatch(/is down$/);
    expect((await timeline(t, user, incident?.id ?? 0)).map((e) => e.type)).toEqual(['OPENED', 'ALERT_SENT', 'SEVERITY_CHANGED', 'ALERT_SENT']);

    const count = (row: string) => requests.counts.get(row) ?? 0;
    // The raise starts from the incident its episode read; each alert reads it once.
    expect(count('GetItem incident')).toBe(3);
    // The sweep's flips carry the check's name and severities: only each alert reads it, for its mute.
    expect(count('GetItem check')).toBe(2);
    // Each delivery asks "already sent?" once, under its claim; the raise's detail comes from the timeline it lists.
    expect(count('GetItem incidentevent')).toBe(2);
    // A project's window holds: by each sweep, and once per message (the incident worker's uptime rollup reuses its read).
    expect(count('Query windowhold')).toBe(6);
  });
});
