import { readOncePerBatch } from '../store/batchReads.js';
import type { Deps } from '../deps.js';
import { membersById } from '../oncall/people.js';
import { teamUserIds } from '../oncall/teams.js';
import type { AlertChannelItem } from '../store/entities/alertChannel.js';
import type { Target } from './schema.js';
import { schedulesOf } from './routing.js';
import { reachOf, unreachedNote } from './timeline.js';
import { getAll } from '../store/batch.js';

/**
 * Who one step reaches, resolved at the instant it fires (docs/guide/oncall-and-escalation.md "Escalation: how it works"): a channel
 * is itself, a user is an e-mail to that user, a team is every member, a schedule is whoever is on
 * call at that instant. A person reached twice in one step (a team and its member) is told once.
 * `key` names the recipient in delivery keys: `<channelId>` or `u<userId>`.
 */
export type Recipient = { key: string; channel: AlertChannelItem; target: Target; label: string };
export type Unreached = { target: Target; note: string };

export const targetLabel = (target: Target): string => {
  switch (target.targetType) {
    case 'ALERT_CHANNEL':
      return `channel #${target.alertChannelId}`;
    case 'USER':
      return `user #${target.targetUserId}`;
    case 'TEAM':
      return `team #${target.targetTeamId}`;
    case 'ON_CALL_SCHEDULE':
      return `on-call schedule #${target.targetScheduleId}`;
  }
};

/** A user is mailed as if through an e-mail channel of their own address (id 0: no stored channel). */
export const userChannel = (workspaceId: number, email: string, at: string): AlertChannelItem => ({
  channelId: 0,
  workspaceId,
  name: email,
  type: 'EMAIL',
  email,
  enabled: true,
  createdAt: at,
  updatedAt: at,
});

const DAY_MS = 86_400_000;

/** The channels a step or a timeline names, read once per queue batch (core/store/batchReads.ts). */
function channelsById(deps: Deps, ids: readonly number[]): Promise<AlertChannelItem[]> {
  const unique = [...new Set(ids)].sort((a, b) => a - b);
  return readOncePerBatch(deps, `channelsById#${unique.join(',')}`, () =>
    getAll(
      deps.store,
      unique.map((channelId) => ({ channelId })),
      (keys) => deps.store.entities.alertChannel.get(keys).go(),
      'alert channels',
    ),
  );
}

export async function recipientsOf(deps: Deps, workspaceId: number, targets: readonly Target[], at: Date): Promise<{ recipients: Recipient[]; unreached: Unreached[] }> {
  const channelIds = targets.flatMap((t) => (t.targetType === 'ALERT_CHANNEL' ? [t.alertChannelId] : []));
  const scheduleIds = targets.flatMap((t) => (t.targetType === 'ON_CALL_SCHEDULE' ? [t.targetScheduleId] : []));
  const teamIds = [...new Set(targets.flatMap((t) => (t.targetType === 'TEAM' ? [t.targetTeamId] : [])))];
  const [channels, schedules, teams] = await Promise.all([
    channelsById(deps, channelIds),
    scheduleIds.length > 0 ? schedulesOf(deps, workspaceId, scheduleIds, new Date(at.getTime() - DAY_MS), new Date(at.getTime() + DAY_MS)) : Promise.resolve(new Map()),
    Promise.all(teamIds.map(async (id) => [id, await teamUserIds(deps, id)] as const)).then((entries) => new Map(entries)),
  ]);
  const channelById = new Map(channels.filter((c) => c.workspaceId === workspaceId).map((c) => [c.channelId, c]));
  const reaches = targets.map((target) => ({ target, reach: reachOf(target, at, schedules, teams) }));
  const people = await membersById(
    deps,
    workspaceId,
    reaches.flatMap((r) => r.reach.userIds),
  );
  const recipients: Recipient[] = [];
  const unreached: Unreached[] = [];
  const seen = new Set<string>();
  const iso = at.toISOString();
  for (const { target, reach } of reaches) {
    let reached = 0;
    for (const channelId of reach.channelIds) {
      const channel = channelById.get(channelId);
      if (!channel || !channel.enabled) continue;
      reached++;
      if (seen.has(String(channelId))) continue;
      seen.add(String(channelId));
      recipients.push({ key: String(channelId), channel, target, label: `${channel.type} channel "${channel.name}"` });
    }
    for (const userId of reach.userIds) {
      const person = people.get(userId);
      if (!person) continue;
      reached++;
      if (seen.has(`u${userId}`)) continue;
      seen.add(`u${userId}`);
      recipients.push({ key: `u${userId}`, channel: userChannel(workspaceId, person.email, iso), target, label: `e-mail to ${person.email}` });
    }
    if (reached === 0) unreached.push({ target, note: reach.note ?? unreachedNote(target, reach.userIds.length) });
  }
  return { recipients, unreached };
}

/** The recipient part of a delivery key written by the engine (`esc#...#<recipient>`), back to a recipient. */
export async function recipientsByKey(deps: Deps, workspaceId: number, keys: readonly string[], at: string): Promise<{ key: string; channel: AlertChannelItem; label: string }[]> {
  const channelIds = [...new Set(keys.filter((k) => /^\d+$/.test(k)).map(Number))];
  const userIds = [...new Set(keys.filter((k) => /^u\d+$/.test(k)).map((k) => Number(k.slice(1))))];
  const [channels, people] = await Promise.all([channelsById(deps, channelIds), membersById(deps, workspaceId, userIds)]);
  return [
    ...channels
      .filter((c) => c.workspaceId === workspaceId && c.enabled)
      .sort((a, b) => a.channelId - b.channelId)
      .map((c) => ({ key: String(c.channelId), channel: c, label: `${c.type} channel "${c.name}"` })),
    ...[...people.values()].sort((a, b) => a.id - b.id).map((p) => ({ key: `u${p.id}`, channel: userChannel(workspaceId, p.email, at), label: `e-mail to ${p.email}` })),
  ];
}
