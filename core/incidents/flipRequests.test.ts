import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createChannel, startReceiver, timeline, type Receiver } from '../../test/support/alerting.js';
import { LONG_SESSIONS } from '../../test/support/checks.js';
import { publishedTypes } from '../../test/support/outbox.js';
import { createJob } from '../../test/support/signals.js';
import type { Store } from '../store/service.js';
import { sweepHeartbeats } from '../sweep/index.js';

/**
 * What one flip costs in store requests, counted by request and entity (as the bench's mass outage
 * does, bench/stepMeter.ts): a job goes LATE, then DOWN, its incident opens and is raised, and the
 * policy's step 0 webhook hears the opening and the raise. A mass outage is thousands of these at
 * once, and each request costs the store client and the embedded store most of a millisecond of
 * CPU, so a read that only repeats what the handler already holds is a cost worth a test. So is a
 * queue message: a publish, a lease and an acknowledgement in the queue store, and its consumer's
 * reads. The embedded runtime's incidents consumer sends the alerts of the incidents it writes
 * itself (core/escalation/handOff.ts), so a flip publishes only its two status changes.
 */
let t: TestContext;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1', ...LONG_SESSIONS });
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

type Attr = { S?: string } | string | undefined;
type Key = Record<string, Attr>;
const text = (value: Attr): string => (typeof value === 'string' ? value : (value?.S ?? ''));
/** `$check_1`, `$signal_1#...`, or a key with no entity in its sort key (`counter`, `lock`) by its partition. */
const entityOf = (key: Key | undefined): string => {
  const sk = text(key?.sk);
  return /^\$([A-Za-z]+)_\d/.exec(sk)?.[1] ?? /^\$?([a-z]+)[#:_]/i.exec(text(key?.pk))?.[1] ?? '?';
};

/** Requests to the table from now on, as `<command> <entity>` (a query by the entity its key values name). */
function meter(store: Pick<Store, 'client' | 'hot'>): { counts: Map<string, number>; stop(): void } {
  const name = `flip-${Math.random().toString(36).slice(2)}`;
  const counts = new Map<string, number>();
  const stacks = [store.client.middlewareStack, store.hot.middlewareStack];
  for (const stack of stacks) {
    stack.add(
      (next, context) => async (args) => {
        const command = context.commandName?.replace(/Command$/, '') ?? '?';
        const input = args.input as {
          Key?: Key;
          Item?: Key;
          RequestItems?: Record<string, { PutRequest?: { Item: Key }; DeleteRequest?: { Key: Key } }[] | { Keys?: Key[] }>;
          ExpressionAttributeValues?: Record<string, unknown>;
        };
        const batch = Object.values(input.RequestItems ?? {})[0];
        const first = Array.isArray(batch) ? (batch[0]?.PutRequest?.Item ?? batch[0]?.DeleteRequest?.Key) : batch?.Keys?.[0];
        const key = input.Item ?? input.Key ?? first;
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

/** The table of a flip, largest first: the queue lanes' own requests (publish, lease, ack) apart, as the bench's queue store is. */
const table = (counts: Map<string, number>): Record<string, number> => Object.fromEntries([...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));

/** The main table's rows only: the queue lanes' own requests are the local queue's (core/adapters/local/queue.ts). */
const tableRows = (counts: Map<string, number>): Record<string, number> => {
  const rows = table(counts);
  for (const row of Object.keys(rows)) if (row.endsWith(' queuemessage')) delete rows[row];
  return rows;
};

/** The queue lanes' rows only: a publish (BatchWriteItem), the receive (Query) and lease, the acknowledgement. */
const queueRows = (counts: Map<string, number>): Record<string, number> => Object.fromEntries(Object.entries(table(counts)).filter(([row]) => row.endsWith(' queuemessage')));

/** A job in a workspace whose policy's step 0 pages one webhook; pinged once, so OK. */
async function pagedJob(name: string) {
  const user = await t.signup(name);
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
  return { user, job, path };
}

/** The job goes LATE, then DOWN: two sweeps, each followed by every queue drained. */
async function lateThenDown(): Promise<void> {
  t.clock.advanceSeconds(91);
  await sweepHeartbeats(t.deps, t.clock.now());
  await t.deps.queue.drain();
  t.clock.advanceSeconds(30);
  await sweepHeartbeats(t.deps, t.clock.now());
  await t.deps.queue.drain();
}

const alertTypes = (path: string) => receiver.at(path).map((r) => (JSON.parse(r.body) as { type: string }).type);

describe('the store requests of one flip', { timeout: 60_000 }, () => {
  it('LATE, DOWN, the incident and its step 0 alerts read nothing twice', async () => {
    const { user, path } = await pagedJob('flip');
    const requests = meter(t.deps.store);
    const messages = publishedTypes(t);
    try {
      await lateThenDown();
    } finally {
      requests.stop();
      messages.stop();
    }
    console.log('one flip:', table(requests.counts), messages.types);

    // The flip happened whole: opened, raised to the down severity, both told to step 0's webhook.
    expect(alertTypes(path)).toEqual(['incident.opened', 'incident.severity_changed']);
    const incidents = await t.request<{ items: { id: number; title: string }[] }>('GET', `/incidents?workspaceId=${user.workspaceId}`, { token: user.token });
    const [incident] = incidents.body.items;
    expect(incident?.title).toMatch(/is down$/);
    expect((await timeline(t, user, incident?.id ?? 0)).map((e) => e.type)).toEqual(['OPENED', 'ALERT_SENT', 'SEVERITY_CHANGED', 'ALERT_SENT']);

    const count = (row: string) => requests.counts.get(row) ?? 0;
    // The raise starts from the incident as this process's escalation plan wrote it, unread, its
    // write conditional on that revision (core/incidents/episodes.ts raiseWritten; before, a
    // consistent get of the incident it remembered open: 1); each alert is sent by the incidents
    // consumer with the incident its write left (before that, each alert's consumer read it: 3).
    expect(count('GetItem incident')).toBe(0);
    // The sweep's flips carry the check's name, severities and mute, and the alerts the incidents
    // consumer sends for them take its mute from there (core/checks/alertCheck.ts; before, each
    // alert read the check for it: 2).
    expect(count('GetItem check')).toBe(0);
    // A delivery's ALERT_SENT entry is its claim (core/alerting/recordClaim.ts): nobody asks "already
    // sent?" when the put of the claim succeeds; the raise's detail comes from the timeline it lists.
    expect(count('GetItem incidentevent')).toBe(0);
    // A project's window holds: by each sweep, and once per message (the incident worker's uptime
    // rollup reuses its read, and so does the alert it sends: 6 when the alerts were messages).
    expect(count('Query windowhold')).toBe(4);

    // The whole table, every request of the flip and why it is made. Per sweep: its due query
    // (`Query check`), the old wake entries' query (`Query signal`), its commit (`setting`), and the
    // project's window holds when a check is about to move. Per status change (LATE, DOWN): the
    // check's conditional write and its outbox clear (`UpdateItem check` x2), the sweep's FAIL
    // signal, its window holds (its alert's too), and whether the workspace has
    // any status page component (a get shared by a batch, where two component queries were, the
    // check's and its project's: core/statuspages/hooks.ts); at DOWN only (LATE is still observed up, so no interval
    // closes: core/statuspages/store/rollups.ts), the uptime cursor get, day rollup and move. The
    // opening: the incident id (counter; a batch's openings share one: core/store/counters.ts
    // sequentialIds), the episode's claim, with no get before it (the check was OK until this
    // change, so the episode has nothing open: core/incidents/episodes.ts wasUp; the claim's
    // condition is what the get checked), the incident put, its OPENED entry,
    // no outbox clear of its own (below). The raise: no episode get and no incident get (the worker
    // remembers the incident it opened and the item this process last wrote, the plan's, and writes
    // on its revision: core/incidents/episodes.ts raiseWritten), its write, its SEVERITY_CHANGED
    // entry, its outbox clear. Each alert, sent by the incidents consumer before its write's outbox
    // clear with the incident the write left and the check's mute its flip carried: routing
    // (policies, rules), channels, and its
    // delivery: the ALERT_SENT entry put as the delivery's claim before the send and confirmed after
    // it (core/alerting/recordClaim.ts; a lock put and delete and an "already sent?" get before); the opening's plans the
    // escalation after step 0 with one incident write that also clears the opening's outbox, every
    // entry of it done here (core/incidents/handOff.ts; two writes before: 4 incident updates a flip,
    // now 3); the raise's lists the timeline for who was told.
    expect(tableRows(requests.counts)).toEqual({
      'BatchGetItem alertchannel': 2,
      'GetItem setting': 2,
      'GetItem uptimecursor': 1,
      'PutItem incident': 1,
      'PutItem incidentevent': 4,
      'PutItem setting': 2,
      'PutItem signal': 2,
      'Query alertchannel': 2,
      'Query check': 2,
      'Query escalationpolicy': 2,
      'Query escalationrule': 2,
      'Query incidentevent': 1,
      'Query signal': 2,
      'Query windowhold': 4,
      'UpdateItem check': 4,
      'UpdateItem counter': 2,
      'UpdateItem incident': 3,
      'UpdateItem incidentepisode': 1,
      'UpdateItem incidentevent': 2,
      'UpdateItem uptimecursor': 1,
      'UpdateItem uptimerollup': 1,
      'GetItem workspace': 2,
    });
    // No message, where four were: the opening's and the raise's alerts left the outbox unpublished,
    // and the sweep hands its LATE and DOWN to the incidents consumer in this process
    // (core/outbox/relay.ts handOffAfterWrite), which settles the check's outbox (its clear, counted
    // above) once it has handled them.
    expect(messages.types).toEqual([]);
    // So the queue lanes write nothing for them (the test's queue lanes are in the main table; 14
    // requests with two messages, 24 with four): what is left is the test's hand drains looking in
    // the store and finding nothing, one query a queue a pass (autoDrain's passes do the same).
    expect(queueRows(requests.counts)).toEqual({ 'Query queuemessage': 6 });
  });

  it('a recovery: the DOWN job pings over HTTP, its incident resolves and step 0 hears it', async () => {
    const { user, job, path } = await pagedJob('recover');
    await lateThenDown();
    // It pings again a minute after its DOWN instant (core/signals/hints.ts SWEPT_AFTER_MS).
    t.clock.advanceSeconds(60);
    const requests = meter(t.deps.store);
    const messages = publishedTypes(t);
    try {
      expect((await t.request('GET', `/signals/ping/${job.token}`)).status).toBe(200);
      await t.deps.queue.drain();
    } finally {
      requests.stop();
      messages.stop();
    }
    console.log('one recovery:', table(requests.counts), messages.types);

    expect(alertTypes(path)).toEqual(['incident.opened', 'incident.severity_changed', 'incident.resolved']);
    const incidents = await t.request<{ items: { id: number; state: string }[] }>('GET', `/incidents?workspaceId=${user.workspaceId}`, { token: user.token });
    expect(incidents.body.items.map((i) => i.state)).toEqual(['RESOLVED']);
    expect((await timeline(t, user, incidents.body.items[0]?.id ?? 0)).map((e) => e.type)).toEqual([
      'OPENED',
      'ALERT_SENT',
      'SEVERITY_CHANGED',
      'ALERT_SENT',
      'ALERT_SENT',
      'RESOLVED',
    ]);

    // The ping: one conditional update (its hint guessed the sweep's DOWN, core/signals/hints.ts
    // sweptStatus: before, the remembered OK failed the condition, and a read and a retry followed:
    // three requests for every job of a mass recovery), its signal, and its outbox clear. The
    // incident worker: the incident it remembers open for the episode (consistent; the episode get is
    // gone, core/incidents/episodes.ts rememberedOpen), the resolve, its RESOLVED entry
    // and outbox clear, the episode's release; the uptime cursor get, the day rollup and the cursor
    // move; whether the workspace has status components. The alert, sent by the incidents consumer
    // with the incident its resolve left and the window holds its batch read: the check (mute),
    // routing, channels, the timeline (who was told), the delivery.
    expect(tableRows(requests.counts)).toEqual({
      'BatchGetItem alertchannel': 1,
      'GetItem check': 1,
      'GetItem incident': 1,
      'GetItem uptimecursor': 1,
      'PutItem incidentevent': 2,
      'PutItem signal': 1,
      'Query alertchannel': 1,
      'Query escalationpolicy': 1,
      'Query escalationrule': 1,
      'Query incidentevent': 1,
      'Query windowhold': 1,
      'UpdateItem check': 2,
      'UpdateItem incident': 2,
      'UpdateItem incidentepisode': 1,
      'UpdateItem incidentevent': 1,
      'UpdateItem uptimecursor': 1,
      'UpdateItem uptimerollup': 1,
      'GetItem workspace': 1,
    });
    // The ping hands its DOWN -> OK to the incidents consumer in this process, as the sweep does its
    // flips (core/outbox/relay.ts handOffAfterWrite): no message, and no queue write (7 requests
    // before); the consumer's settle is the ping's outbox clear, counted above.
    expect(messages.types).toEqual([]);
    expect(queueRows(requests.counts)).toEqual({ 'Query queuemessage': 3 });
  });

  it('a batch of flips takes its incident ids with a counter update or two, not one each', async () => {
    const { user } = await pagedJob('batch');
    const key = await t.apiKey(user);
    for (let i = 0; i < 5; i++) {
      const job = await createJob(t, user, key, { intervalSeconds: 60, graceSeconds: 30 });
      expect((await t.request('GET', `/signals/ping/${job.token}`)).status).toBe(200);
    }
    await t.deps.queue.drain();
    const send = vi.spyOn(t.deps.store.client, 'send');
    let incidentCounter: number;
    try {
      t.clock.advanceSeconds(91);
      await sweepHeartbeats(t.deps, t.clock.now());
      await t.deps.queue.drain();
      incidentCounter = send.mock.calls.filter(([command]) => JSON.stringify(command.input).includes('"counter#incident"')).length;
    } finally {
      send.mockRestore();
    }
    const incidents = await t.request<{ items: { id: number; createdAt: string }[] }>('GET', `/incidents?workspaceId=${user.workspaceId}`, { token: user.token });
    expect(incidents.body.items).toHaveLength(6);
    // core/store/counters.ts sequentialIds: the first opening's update, then one for those that asked meanwhile
    // (2 or 3 here: how many ask while the first is in flight is the store's timing).
    expect(incidentCounter).toBeLessThan(6);
  });

  it('a guess of the sweep it did not make (no sweep ran) costs one read and a retry, and the ping lands', async () => {
    const { user, job } = await pagedJob('unswept');
    t.clock.advanceSeconds(181);
    const requests = meter(t.deps.store);
    try {
      expect((await t.request('GET', `/signals/ping/${job.token}`)).status).toBe(200);
    } finally {
      requests.stop();
    }
    expect([requests.counts.get('UpdateItem check'), requests.counts.get('GetItem check')]).toEqual([2, 1]);
    const check = await t.request<{ status: string }>('GET', `/v1/jobs/${job.id}`, { token: await t.apiKey(user) });
    expect(check.body.status).toBe('OK');
  });
});
