import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/harness.js';
import { HOSTILE_STRINGS, inertProblems, type HostileString } from '../../../test/support/hostile.js';
import { PAGERDUTY_CONFIG, PUSHOVER_CONFIG, pagerDutyEvent, pushoverForm, startProviders, type Providers } from '../../../test/support/providers.js';
import { handleAlertMessages } from '../../escalation/dispatch.js';
import { testAlertChannel } from '../channelsDelivery.js';

/**
 * The hostile-string table (test/support/hostile.ts) against the PUSHOVER, PAGERDUTY and SMS
 * formats, with tenant text in a channel's name and an incident's title and description. Each
 * part is held to the table's check for the kind of text it is: Pushover's title is one plain
 * line and its message HTML (html=1); PagerDuty's summary is one line and its details plain
 * text, in JSON; an SMS is plain text.
 */
let t: TestContext;
let providers: Providers;
beforeAll(async () => {
  t = await createTestContext();
  providers = await startProviders();
  t.deps.queue.consume('alerts', (messages) => handleAlertMessages(t.deps, messages, { outbound: providers.outbound }));
});
afterAll(() => providers.close());

type Workspace = Awaited<ReturnType<typeof workspace>>;
async function workspace(hostile: HostileString, n: number) {
  const user = await t.signup(`provider-hostile${n}`);
  const phoneNumber = `+1500555${String(n).padStart(4, '0')}`;
  const create = async (type: string, config: Record<string, string>) => {
    const res = await t.request<{ id: number }>('POST', '/alert-channels', { token: user.token, body: { workspaceId: user.workspaceId, name: hostile.value, type, config } });
    expect(res.status, res.text).toBe(201);
    return res.body.id;
  };
  // Each workspace's own routing and user keys tell its requests apart at the one receiver.
  const userKey = `u${String(n).padStart(29, '0')}`;
  const routingKey = `r${String(n).padStart(31, '0')}`;
  const channelIds = [
    await create('PUSHOVER', { ...PUSHOVER_CONFIG, userKey }),
    await create('PAGERDUTY', { ...PAGERDUTY_CONFIG, routingKey }),
    await create('SMS', { phoneNumber }),
  ];
  return { hostile, user, key: await t.apiKey(user), channelIds, userKey, routingKey, phoneNumber, seen: { pushover: 0, pagerDuty: 0, sms: 0 } };
}

let all: Workspace[] = [];
beforeAll(async () => {
  all = await Promise.all(HOSTILE_STRINGS.map((h, n) => workspace(h, n)));
}, 180_000);

/** What each workspace received since the last look: `count` of each, every part inert and readable where it must carry the string. */
function look(kind: string, count: number, carries: { pushover: boolean; pagerDuty: boolean; sms: boolean }): string[] {
  const problems: string[] = [];
  for (const w of all) {
    const pushover = providers
      .pushover()
      .map(pushoverForm)
      .filter((f) => f.user === w.userKey)
      .slice(w.seen.pushover);
    const pagerDuty = providers
      .pagerDuty()
      .map(pagerDutyEvent)
      .filter((e) => e.routing_key === w.routingKey)
      .slice(w.seen.pagerDuty);
    const sms = t.deps.sms.outbox.filter((m) => m.to === w.phoneNumber).slice(w.seen.sms);
    w.seen = { pushover: w.seen.pushover + pushover.length, pagerDuty: w.seen.pagerDuty + pagerDuty.length, sms: w.seen.sms + sms.length };
    const at = (format: string) => (p: string) => `${w.hostile.name} / ${kind} / ${format}: ${p}`;
    const triggers = pagerDuty.filter((e) => e.event_action === 'trigger');
    if (pushover.length !== count || triggers.length !== count || sms.length !== count) {
      problems.push(`${w.hostile.name} / ${kind}: ${pushover.length} Pushover messages, ${triggers.length} PagerDuty triggers, ${sms.length} SMS, not ${count} each`);
    }
    for (const form of pushover) {
      problems.push(...inertProblems('mailSubject', form.title ?? '', w.hostile, { carries: carries.pushover && kind !== 'channel test' }).map(at('pushover title')));
      problems.push(...inertProblems('mailHtml', form.message ?? '', w.hostile, { carries: carries.pushover }).map(at('pushover html message')));
    }
    for (const event of triggers) {
      const payload = event.payload as { summary: string; custom_details: { details: string } };
      problems.push(...inertProblems('mailSubject', payload.summary, w.hostile, { carries: carries.pagerDuty && kind !== 'channel test' }).map(at('pagerduty summary')));
      problems.push(...inertProblems('mailText', payload.custom_details.details, w.hostile, { carries: carries.pagerDuty }).map(at('pagerduty details')));
    }
    for (const m of sms) problems.push(...inertProblems('mailText', m.text, w.hostile, { carries: carries.sms }).map(at('sms')));
  }
  return problems;
}

describe('tenant text from the hostile table arrives inert and readable in Pushover, PagerDuty and SMS', { timeout: 180_000 }, () => {
  it('channel test sends name the channel (Pushover message, PagerDuty details; an SMS carries only the fixed subject)', async () => {
    await Promise.all(
      all.map(async (w) => {
        const actor = { kind: 'user' as const, userId: w.user.userId, email: w.user.email };
        for (const id of w.channelIds) expect((await testAlertChannel({ deps: t.deps, actor }, id, providers.outbound)).ok).toBe(true);
      }),
    );
    expect(look('channel test', 1, { pushover: true, pagerDuty: true, sms: false })).toEqual([]);
    expect(providers.problems).toEqual([]);
  });

  it('an incident opened with a hostile title and description', async () => {
    await Promise.all(
      all.map(async (w) => {
        const res = await t.request('POST', '/v1/incidents', { token: w.key, body: { title: w.hostile.value, description: w.hostile.value, severity: 'P1' } });
        expect(res.status, res.text).toBe(201);
      }),
    );
    await t.deps.queue.drain();
    // The SMS carries the incident's short acknowledge link whole, and its words are cut to what is
    // left of one segment (the longer hostile titles do not fit): inert is checked, not carried whole.
    expect(look('incident opened', 1, { pushover: true, pagerDuty: true, sms: false })).toEqual([]);
    expect(providers.problems).toEqual([]);
  });
});
