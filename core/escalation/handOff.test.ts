import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { alertsSent, createChannel, startReceiver, type Receiver } from '../../test/support/alerting.js';
import { publishedTypes, sweepAndDeliver } from '../../test/support/outbox.js';
import { createJob } from '../../test/support/signals.js';
import { consumeIncidentsAndAlerts } from '../runtime.js';
import { UpdateItemCommand, type UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { readIncident } from '../incidents/repository.js';
import { handleAlertMessages } from './dispatch.js';

/**
 * The embedded runtime's incidents consumer sends the alerts of the incidents it writes itself
 * (core/escalation/handOff.ts, core/incidents/handOff.ts) while they stay owed in the incident's
 * outbox: what is sent is cleared unpublished, what is not is published for the alerts queue. A
 * process that dies anywhere in between still delivers each alert once (the sweep's relay publishes
 * what is still owed; the delivery's claim finds what was sent).
 */
let t: TestContext;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1' });
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

let paths = 0;
/** A job in a workspace of its own with one webhook channel (no policy: every channel hears every change), pinged once. */
async function watchedJob(name: string) {
  const user = await t.signup(name);
  const key = await t.apiKey(user);
  const path = `/handoff-${++paths}`;
  await createChannel(t, user, { type: 'WEBHOOK', config: { url: receiver.url(path) } });
  const job = await createJob(t, user, key, { intervalSeconds: 60, graceSeconds: 30 });
  expect((await t.request('GET', `/signals/ping/${job.token}`)).status).toBe(200);
  await t.deps.queue.drain();
  // Past the second in which a repeated ping is taken for the same one.
  t.clock.advanceSeconds(2);
  return { user, key, job, path };
}

const fail = (job: { token: string }) => t.request('GET', `/signals/ping/${job.token}/fail`);
const typesAt = (path: string) => receiver.at(path).map((r) => (JSON.parse(r.body) as { type: string }).type);
const incidentOf = async (user: Awaited<ReturnType<typeof watchedJob>>['user']) =>
  (await t.request<{ items: { id: number }[] }>('GET', `/incidents?workspaceId=${user.workspaceId}`, { token: user.token })).body.items[0]?.id ?? 0;

/**
 * The process dies at the first store request `at` matches: that request and every later one, and
 * every publish, fail until `revive` (the restart), so nothing after the crash point happens.
 */
function dieAt(at: (command: string, input: string) => boolean): { died(): boolean; revive(): void } {
  const name = `die-${Math.random().toString(36).slice(2)}`;
  let dead = false;
  const stacks = [t.deps.store.client.middlewareStack, t.deps.store.hot.middlewareStack];
  for (const stack of stacks) {
    stack.add(
      (next, context) => async (args) => {
        if (!dead && at(context.commandName ?? '', JSON.stringify(args.input))) dead = true;
        if (dead) throw new Error('the process is gone');
        return next(args);
      },
      { step: 'initialize', name },
    );
  }
  const publish = t.deps.queue.publish.bind(t.deps.queue);
  const gate = vi.spyOn(t.deps.queue, 'publish').mockImplementation(async (queue, bodies) => {
    if (dead) throw new Error('the process is gone');
    return publish(queue, bodies);
  });
  return {
    died: () => dead,
    revive: () => {
      for (const stack of stacks) stack.remove(name);
      gate.mockRestore();
    },
  };
}

/** The flip with the process dying where `at` says, then the restart's sweep: the opening alert reaches the webhook once. */
async function crashedFlip(name: string, at: (command: string, input: string) => boolean) {
  const { user, job, path } = await watchedJob(name);
  const crash = dieAt(at);
  const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    await fail(job);
    await t.deps.queue.drain();
  } catch {
    // The crash.
  } finally {
    crash.revive();
    logged.mockRestore();
  }
  expect(crash.died()).toBe(true);
  const before = typesAt(path);
  const sweep = publishedTypes(t);
  try {
    await sweepAndDeliver(t);
  } finally {
    sweep.stop();
  }
  expect(typesAt(path)).toEqual(['incident.opened']);
  expect(await alertsSent(t, user, await incidentOf(user))).toHaveLength(1);
  return { user, before, sweptOut: sweep.types };
}

describe('the incidents consumer sends the alerts of the incidents it writes', { timeout: 60_000 }, () => {
  it('a flip publishes no alert and its webhook hears it; an acknowledgement over HTTP still publishes its own', async () => {
    const { user, key, job, path } = await watchedJob('handed');
    const messages = publishedTypes(t);
    try {
      expect((await fail(job)).status).toBe(200);
      await t.deps.queue.drain();
      expect(typesAt(path)).toEqual(['incident.opened']);
      // Nothing published: the ping handed its flip to the incidents consumer too (core/outbox/relay.ts handOffAfterWrite).
      expect(messages.types).toEqual([]);
      // A request does not wait on webhooks: its change's alert goes through the alerts queue.
      const acknowledged = await t.request('POST', `/v1/incidents/${await incidentOf(user)}/acknowledge`, { token: key });
      expect(acknowledged.status, acknowledged.text).toBe(200);
      await t.deps.queue.drain();
    } finally {
      messages.stop();
    }
    expect(messages.types).toEqual(['alerts incident.acknowledged']);
    expect(typesAt(path)).toEqual(['incident.opened', 'incident.acknowledged']);
  });

  it('a crash after the incident is written and before its alert is sent: the sweep publishes the alert, sent once', async () => {
    // Dies at the delivery's claim (the ALERT_SENT entry put before the send).
    const { before, sweptOut } = await crashedFlip('before-send', (command, input) => command === 'PutItemCommand' && input.includes('ALERT_SENT') && input.includes('"claim"'));
    expect(before).toEqual([]);
    expect(sweptOut).toContain('alerts incident.opened');
  });

  it('a crash after the alert is sent and before the write that clears its outbox (the escalation plan): the sweep publishes it, its claim finds it sent, and the escalation sweep plans it', async () => {
    // The plan's write, which takes the outbox clear in (core/incidents/handOff.ts): the clear's condition in an incident update.
    const { user, before, sweptOut } = await crashedFlip(
      'after-send',
      (command, input) => command === 'UpdateItemCommand' && input.includes('#oid = :last') && input.includes('$incident_'),
    );
    expect(before).toEqual(['incident.opened']);
    expect(sweptOut).toContain('alerts incident.opened');
    // Planned after all (by the republished alert's consumer or the escalation sweep): out of the due index.
    expect((await readIncident(t.deps, await incidentOf(user)))?.dueAt).toBeUndefined();
  });

  it("the plan's write refused (the sweep's relay cleared the outbox first): the clear goes on its own, the plan reads again and is written", async () => {
    const { user, job, path } = await watchedJob('refused-fold');
    const name = `outbox-cleared-${Math.random().toString(36).slice(2)}`;
    const folded: string[] = [];
    t.deps.store.hot.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { Key?: unknown; ConditionExpression?: string; UpdateExpression?: string };
        if (context.commandName === 'UpdateItemCommand' && input.ConditionExpression?.includes('#revision') && input.ConditionExpression.includes('#oid = :last')) {
          folded.push(input.ConditionExpression);
          // As a relay elsewhere would, just before: the outbox's entries published and removed.
          await t.deps.store.hot.send(
            new UpdateItemCommand({ TableName: t.deps.store.table, Key: input.Key as UpdateItemCommandInput['Key'], UpdateExpression: 'REMOVE outbox, outboxId, gsi4pk, gsi4sk' }),
          );
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    const logged = vi.spyOn(console, 'error');
    try {
      await fail(job);
      await t.deps.queue.drain();
    } finally {
      t.deps.store.hot.middlewareStack.remove(name);
      logged.mockRestore();
    }
    expect(folded).toHaveLength(1);
    expect(logged).not.toHaveBeenCalled();
    expect(typesAt(path)).toEqual(['incident.opened']);
    const incident = await readIncident(t.deps, await incidentOf(user));
    expect([incident?.dueAt, incident?.outbox, incident?.revision]).toEqual([undefined, undefined, 2]);
  });

  it('a failed send is published and retried by the alerts queue; a channel that failed recently is left to the queue at once', async () => {
    const first = await watchedJob('failing');
    const { job } = await createJobIn(first);
    receiver.answer(first.path, { status: 500 }, { status: 500 });
    const messages = publishedTypes(t);
    try {
      await fail(first.job);
      // Delays honoured: the incidents consumer's attempt, then the alerts queue's first, both failed.
      await t.deps.queue.deliverDue();
      expect(receiver.at(first.path)).toHaveLength(2);
      expect(messages.types).toEqual(['alerts incident.opened']);
      // A second job of the workspace flips: its channel failed a moment ago, so only the queue tries it (and now it answers).
      await fail(job);
      await t.deps.queue.deliverDue();
      expect(receiver.at(first.path)).toHaveLength(3);
      // The first alert's retry comes after its backoff (core/ports/retry.ts: at most 30 s the first time).
      t.clock.advanceSeconds(31);
      await t.deps.queue.deliverDue();
    } finally {
      messages.stop();
    }
    // Four attempts in all, one of them of the second job's alert; each incident was told once.
    expect(receiver.at(first.path)).toHaveLength(4);
    const incidents = (await t.request<{ items: { id: number }[] }>('GET', `/incidents?workspaceId=${first.user.workspaceId}`, { token: first.user.token })).body.items;
    expect(await Promise.all(incidents.map(async (incident) => (await alertsSent(t, first.user, incident.id)).length))).toEqual([1, 1]);
    expect(messages.types.filter((type) => type.startsWith('alerts'))).toEqual(['alerts incident.opened', 'alerts incident.opened']);
    // Not sent here, so not folded into the plan: the relay published the alert and cleared, then the plan was written.
    expect(await Promise.all(incidents.map(async (incident) => (await readIncident(t.deps, incident.id))?.dueAt))).toEqual([undefined, undefined]);
  });

  it('a runtime whose alerts consumer is not its own (a test with its own options) sends every alert through that consumer', async () => {
    const { job, path } = await watchedJob('own-consumer');
    const seen: string[] = [];
    t.deps.queue.consume('alerts', (batch) => {
      for (const message of batch) seen.push((message.body as { type: string }).type);
      return handleAlertMessages(t.deps, batch);
    });
    try {
      await fail(job);
      await t.deps.queue.drain();
    } finally {
      consumeIncidentsAndAlerts(t.deps, { handOffAlerts: true });
    }
    expect(seen).toEqual(['incident.opened']);
    expect(typesAt(path)).toEqual(['incident.opened']);
  });
});

/** Another job in the same workspace, pinged once. */
async function createJobIn(owner: Awaited<ReturnType<typeof watchedJob>>) {
  const job = await createJob(t, owner.user, owner.key, { intervalSeconds: 60, graceSeconds: 30 });
  expect((await t.request('GET', `/signals/ping/${job.token}`)).status).toBe(200);
  await t.deps.queue.drain();
  t.clock.advanceSeconds(2);
  return { job };
}
