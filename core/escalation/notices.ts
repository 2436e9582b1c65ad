import type { Deps } from '../deps.js';
import type { MailMessage } from '../ports/index.js';
import { membersById, peopleById } from '../oncall/people.js';
import { gapsStartingIn, shiftsStartingIn } from '../oncall/rotation.js';
import { scheduleSpec } from '../oncall/coverage.js';
import { CLAIM_LEASE_MS, claimDelivery } from '../alerting/deliveryClaim.js';
import { isConditionalFailure } from '../store/conditional.js';
import { sweepDue, type DueSweepReport } from '../store/dueSweep.js';
import { singleLine } from '../statuspages/render/sanitize.js';
import type { OnCallScheduleItem } from '../store/entities/onCallSchedule.js';
import { dueKey, NOTICE_SHARD, noticeDueFields } from '../store/escalationDue.js';

/**
 * On-call notices, a sweep step (docs/guide/oncall-and-escalation.md "Escalation: how it works"):
 * - handoff: `handoffNotificationMinutes` before a shift starts, its user is mailed, once per shift;
 * - coverage gaps: the schedule's workspace admins are mailed once per gap starting within 7 days.
 * It reads only the schedules due for a look (the escalation-due index under its own shard): a
 * schedule is due when created, edited or overridden, and then at its next handoff notice, at
 * most an hour later. Each notice is sent as alerts are (alerting/delivery.ts): under a delivery
 * claim, then recorded by an alertSent marker under its key, so a sweep that dies before the mail
 * leaves the notice to the next one (once the claim is an orphan), never loses it; only a death
 * between the mail and the marker sends it twice. A notice whose first mail fails is not recorded,
 * and the schedule stays due, so the next sweep sends it.
 */
export type NoticeSweepReport = DueSweepReport & { handoffs: number; gaps: number };

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const GAP_HORIZON_MS = 7 * 24 * HOUR_MS;
const MARKER_TTL_SECONDS = 30 * 24 * 3600;
const PAGE_SIZE = 100;

/**
 * The index entry is handled as read: every mail is guarded by its marker and claim, and the next
 * look is written on the condition that the due instant read is still the stored one.
 */
export async function sweepOnCallNotices(deps: Deps, now: Date): Promise<NoticeSweepReport> {
  const sent = { handoffs: 0, gaps: 0 };
  const report = await sweepDue({
    name: 'on-call notices',
    shards: [NOTICE_SHARD],
    page: (dueShard, cursor, limit) =>
      deps.store.entities.onCallSchedule.query
        .byDue({ dueShard })
        .lte({ dueAt: dueKey(now) })
        .go({ cursor, limit }),
    handle: async (schedule) => {
      const outcome = await noticesOf(deps, schedule, now);
      sent.handoffs += outcome.handoffs;
      sent.gaps += outcome.gaps;
    },
    label: (schedule) => `schedule ${schedule.scheduleId}`,
    pageSize: PAGE_SIZE,
  });
  return { ...report, ...sent };
}

type Notice = { key: string; workspaceId: number; event: 'oncall.handoff' | 'oncall.coverage_gap' };

/**
 * What became of a notice: mailed now, recorded as mailed before, or held by another sweep's claim
 * (one mailing it right now, or one that died doing so: its schedule is looked at again when the
 * claim lapses, so a notice due within the hour is not left to an hourly look that comes too late).
 */
type NoticeOutcome = 'sent' | 'recorded' | 'held';

/**
 * Sends a notice's mails unless its marker says it was sent. The claim keeps two sweeps from
 * mailing at once; the marker, written once the first mail went (also when a later one fails, so
 * the recipients already mailed are not mailed again), is what says "sent" from then on.
 */
async function sendNotice(deps: Deps, notice: Notice, now: Date, mails: readonly MailMessage[]): Promise<NoticeOutcome> {
  const recorded = async () => (await deps.store.entities.alertSent.get({ deliveryKey: notice.key }).go({ consistent: true })).data !== null;
  // A gap is looked at every hour for a week: one read says it was sent, without taking a claim.
  if (await recorded()) return 'recorded';
  const release = await claimDelivery(deps, notice.key, now);
  if (!release) return 'held';
  try {
    // Again under the claim: a sweep that finished just before it was taken has recorded the notice.
    if (await recorded()) return 'recorded';
    let mailed = 0;
    try {
      for (const mail of mails) {
        await deps.mailer.send(mail);
        mailed++;
      }
    } catch (err) {
      if (mailed > 0) await markSent(deps, notice, now);
      throw err;
    }
    await markSent(deps, notice, now);
    return 'sent';
  } finally {
    await release();
  }
}

async function markSent(deps: Deps, notice: Notice, now: Date): Promise<void> {
  try {
    await deps.store.entities.alertSent
      .create({
        deliveryKey: notice.key,
        workspaceId: notice.workspaceId,
        channelId: 0,
        event: notice.event,
        sentAt: now.toISOString(),
        expiresAt: Math.floor(now.getTime() / 1000) + MARKER_TTL_SECONDS,
      })
      .go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

async function noticesOf(deps: Deps, schedule: OnCallScheduleItem, now: Date): Promise<{ handoffs: number; gaps: number }> {
  const sent = { handoffs: 0, gaps: 0 };
  const lead = schedule.handoffNotificationMinutes;
  let next = new Date(now.getTime() + HOUR_MS);
  let held = false;
  const count = (outcome: NoticeOutcome, kind: keyof typeof sent) => {
    if (outcome === 'sent') sent[kind]++;
    held ||= outcome === 'held';
  };
  if (schedule.enabled) {
    const spec = await scheduleSpec(deps, schedule, new Date(now.getTime() - 24 * HOUR_MS), new Date(now.getTime() + GAP_HORIZON_MS + 24 * HOUR_MS));
    if (lead !== undefined) {
      const window = new Date(now.getTime() + lead * MINUTE_MS);
      const soon = shiftsStartingIn(spec, now, new Date(window.getTime() + 1));
      const people = await membersById(
        deps,
        schedule.workspaceId,
        soon.map((s) => s.userId),
      );
      for (const shift of soon) {
        const person = people.get(shift.userId);
        if (!person) continue;
        const notice: Notice = { key: `handoff#${schedule.scheduleId}#${shift.userId}#${shift.startAt}`, workspaceId: schedule.workspaceId, event: 'oncall.handoff' };
        const mail = {
          to: person.email,
          subject: `[On call] Your shift on "${oneLine(schedule.name)}" starts at ${shift.startAt}`,
          text: `You are on call for the schedule "${oneLine(schedule.name)}" from ${shift.startAt} to ${shift.endAt} (UTC).`,
        };
        count(await sendNotice(deps, notice, now, [mail]), 'handoffs');
      }
      // The next look: when the next shift's notice falls due, if that is within the hour.
      const later = shiftsStartingIn(spec, new Date(window.getTime() + 1), new Date(now.getTime() + HOUR_MS + lead * MINUTE_MS))[0];
      if (later) next = new Date(Math.max(now.getTime() + 1, Date.parse(later.startAt) - lead * MINUTE_MS));
    }
    const gaps = gapsStartingIn(spec, now, new Date(now.getTime() + GAP_HORIZON_MS));
    if (gaps.length > 0) {
      const admins = (await deps.store.entities.membership.query.byWorkspace({ workspaceId: schedule.workspaceId }).go({ pages: 'all' })).data.filter(
        (m) => m.role === 'ADMIN' || m.role === 'OWNER',
      );
      const people = await peopleById(
        deps,
        admins.map((m) => m.userId),
      );
      for (const gap of gaps) {
        const notice: Notice = { key: `gap#${schedule.scheduleId}#${gap.startAt}`, workspaceId: schedule.workspaceId, event: 'oncall.coverage_gap' };
        const mails = [...people.values()].map((person) => ({
          to: person.email,
          subject: `[On call] Nobody is on call for "${oneLine(schedule.name)}" from ${gap.startAt}`,
          text: `The on-call schedule "${oneLine(schedule.name)}" has nobody on call from ${gap.startAt} to ${gap.endAt} (UTC). Add an override or a rotation to cover it.`,
        }));
        count(await sendNotice(deps, notice, now, mails), 'gaps');
      }
    }
  }
  if (held) next = new Date(Math.min(next.getTime(), now.getTime() + CLAIM_LEASE_MS));
  await nextLook(deps, schedule, schedule.enabled ? next : null);
  return sent;
}

/** Moves the schedule's next look, unless an edit put it due meanwhile (then the edit's instant stands). */
async function nextLook(deps: Deps, schedule: OnCallScheduleItem, at: Date | null): Promise<void> {
  try {
    const patch = deps.store.entities.onCallSchedule.patch({ scheduleId: schedule.scheduleId });
    const write = at ? patch.set(noticeDueFields(at)) : patch.remove(['dueShard', 'dueAt']);
    await write.where((attr, op) => op.eq(attr.dueAt, schedule.dueAt ?? '')).go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

/** A schedule's name in a subject or a sentence: no line breaks or bidi overrides, bounded. */
const oneLine = (value: string): string => singleLine(value, 200);
