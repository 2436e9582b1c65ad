import type { Deps } from '../deps.js';
import type { MailMessage } from '../ports/index.js';
import { membersById, peopleById } from '../oncall/people.js';
import { gapsStartingIn, shiftsStartingIn } from '../oncall/rotation.js';
import { scheduleSpec } from '../oncall/views.js';
import { isConditionalFailure, undoIfFails } from '../store/conditional.js';
import type { OnCallScheduleItem } from '../store/entities/onCallSchedule.js';
import { dueKey, NOTICE_SHARD, noticeDueFields } from '../store/escalationDue.js';

/**
 * On-call notices, a sweep step (design/alerting.md "Endpoints the spec leaves open"):
 * - handoff: `handoffNotificationMinutes` before a shift starts, its user is mailed, once per shift;
 * - coverage gaps: the schedule's workspace admins are mailed once per gap starting within 7 days.
 * It reads only the schedules due for a look (the escalation-due index under its own shard): a
 * schedule is due when created, edited or overridden, and then at its next handoff notice, at
 * most an hour later. Each notice is sent at most once: an alertSent marker under its key is
 * claimed before the mail goes (a crash between the two loses that notice rather than doubling it).
 * A mail that fails before any of the notice's mails went out gives the claim back, and the
 * schedule stays due, so the next sweep sends it.
 */
export type NoticeSweepReport = { read: number; handoffs: number; gaps: number };

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const GAP_HORIZON_MS = 7 * 24 * HOUR_MS;
const MARKER_TTL_SECONDS = 30 * 24 * 3600;
const PAGE_SIZE = 100;

export async function sweepOnCallNotices(deps: Deps, now: Date): Promise<NoticeSweepReport> {
  const report: NoticeSweepReport = { read: 0, handoffs: 0, gaps: 0 };
  let cursor: string | null = null;
  do {
    const page: { data: OnCallScheduleItem[]; cursor: string | null } = await deps.store.entities.onCallSchedule.query
      .byNoticeDue({ noticeDue: NOTICE_SHARD })
      .lte({ noticeDueAt: dueKey(now) })
      .go({ cursor, limit: PAGE_SIZE });
    report.read += page.data.length;
    for (const schedule of page.data) {
      try {
        const sent = await noticesOf(deps, schedule, now);
        report.handoffs += sent.handoffs;
        report.gaps += sent.gaps;
      } catch (err) {
        console.error(`on-call notices: schedule ${schedule.scheduleId} failed`, err);
      }
    }
    cursor = page.cursor;
  } while (cursor);
  return report;
}

/** Claims one notice by key; false when it was claimed before (sent, or lost to a crash: never twice). */
async function claimNotice(deps: Deps, key: string, workspaceId: number, event: string, now: Date): Promise<boolean> {
  try {
    await deps.store.entities.alertSent
      .create({ deliveryKey: key, workspaceId, channelId: 0, event, sentAt: now.toISOString(), expiresAt: Math.floor(now.getTime() / 1000) + MARKER_TTL_SECONDS })
      .go();
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

/**
 * Sends a claimed notice's mails. If the first fails, nothing went out under the claim: it is given
 * back (on the condition that it is still this sweep's) before the error leaves the schedule due.
 * A later one failing keeps the claim, so the recipients already mailed are not mailed twice.
 */
async function mailClaimed(deps: Deps, key: string, now: Date, mails: readonly MailMessage[]): Promise<void> {
  for (const [i, mail] of mails.entries()) {
    const send = () => deps.mailer.send(mail);
    const unclaim = () =>
      deps.store.entities.alertSent
        .delete({ deliveryKey: key })
        .where((attr, op) => op.eq(attr.sentAt, now.toISOString()))
        .go();
    await (i === 0 ? undoIfFails(send, unclaim, `the on-call notice ${key}`) : send());
  }
}

async function noticesOf(deps: Deps, schedule: OnCallScheduleItem, now: Date): Promise<{ handoffs: number; gaps: number }> {
  const sent = { handoffs: 0, gaps: 0 };
  const lead = schedule.handoffNotificationMinutes;
  let next = new Date(now.getTime() + HOUR_MS);
  if (schedule.enabled) {
    const spec = await scheduleSpec(deps, schedule, new Date(now.getTime() - 24 * HOUR_MS), new Date(now.getTime() + GAP_HORIZON_MS + 24 * HOUR_MS));
    if (lead !== undefined) {
      const window = new Date(now.getTime() + lead * MINUTE_MS);
      const soon = shiftsStartingIn(spec, now, new Date(window.getTime() + 1));
      const people = await membersById(deps, schedule.workspaceId, soon.map((s) => s.userId));
      for (const shift of soon) {
        const person = people.get(shift.userId);
        const key = `handoff#${schedule.scheduleId}#${shift.userId}#${shift.startAt}`;
        if (!person || !(await claimNotice(deps, key, schedule.workspaceId, 'oncall.handoff', now))) continue;
        await mailClaimed(deps, key, now, [
          {
            to: person.email,
            subject: `[On call] Your shift on "${oneLine(schedule.name)}" starts at ${shift.startAt}`,
            text: `You are on call for the schedule "${oneLine(schedule.name)}" from ${shift.startAt} to ${shift.endAt} (UTC).`,
          },
        ]);
        sent.handoffs++;
      }
      // The next look: when the next shift's notice falls due, if that is within the hour.
      const later = shiftsStartingIn(spec, new Date(window.getTime() + 1), new Date(now.getTime() + HOUR_MS + lead * MINUTE_MS))[0];
      if (later) next = new Date(Math.max(now.getTime() + 1, Date.parse(later.startAt) - lead * MINUTE_MS));
    }
    const gaps = gapsStartingIn(spec, now, new Date(now.getTime() + GAP_HORIZON_MS));
    if (gaps.length > 0) {
      const admins = (await deps.store.entities.membership.query.byWorkspace({ workspaceId: schedule.workspaceId }).go({ pages: 'all' })).data.filter((m) => m.role === 'ADMIN' || m.role === 'OWNER');
      const people = await peopleById(deps, admins.map((m) => m.userId));
      for (const gap of gaps) {
        const key = `gap#${schedule.scheduleId}#${gap.startAt}`;
        if (!(await claimNotice(deps, key, schedule.workspaceId, 'oncall.coverage_gap', now))) continue;
        await mailClaimed(
          deps,
          key,
          now,
          [...people.values()].map((person) => ({
            to: person.email,
            subject: `[On call] Nobody is on call for "${oneLine(schedule.name)}" from ${gap.startAt}`,
            text: `The on-call schedule "${oneLine(schedule.name)}" has nobody on call from ${gap.startAt} to ${gap.endAt} (UTC). Add an override or a rotation to cover it.`,
          })),
        );
        sent.gaps++;
      }
    }
  }
  await nextLook(deps, schedule, schedule.enabled ? next : null);
  return sent;
}

/** Moves the schedule's next look, unless an edit put it due meanwhile (then the edit's instant stands). */
async function nextLook(deps: Deps, schedule: OnCallScheduleItem, at: Date | null): Promise<void> {
  try {
    const patch = deps.store.entities.onCallSchedule.patch({ scheduleId: schedule.scheduleId });
    const write = at ? patch.set(noticeDueFields(at)) : patch.remove(['noticeDue', 'noticeDueAt']);
    await write.where((attr, op) => op.eq(attr.noticeDueAt, schedule.noticeDueAt ?? '')).go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

const oneLine = (value: string): string => value.replace(/\s+/g, ' ').trim().slice(0, 200);
