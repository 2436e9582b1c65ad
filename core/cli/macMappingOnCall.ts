import { instant, type Json, pick, type Refs, stated } from './macMapping.js';
import type { Item } from './macModel.js';

/** Between the Integration API's on-call shapes (core/oncall/schema.ts, core/escalation/schema.ts) and the file's (pure; macMapping.ts has the rest). */

// ---- on-call schedules (people by e-mail; overrides stay operational, not in the file) ----

const ROTATION_FIELDS = ['name', 'type', 'layerPosition', 'effectiveFrom', 'effectiveUntil', 'handoffTime', 'handoffDay', 'customShiftHours'] as const;

export function scheduleToFile(api: Json, refs: Refs): Item {
  const rotations = [...((api.rotations ?? []) as Json[])]
    .sort((a, b) => Number(a.layerPosition) - Number(b.layerPosition))
    .map((r) => ({
      ...pick({ ...r, effectiveFrom: instant(r.effectiveFrom), effectiveUntil: instant(r.effectiveUntil) }, ROTATION_FIELDS),
      participants: [...((r.participants ?? []) as Json[])].sort((a, b) => Number(a.position) - Number(b.position)).map((p) => refs.name('user', Number(p.userId))),
    }));
  return { ...pick(api, ['name', 'description', 'timezone', 'handoffNotificationMinutes', 'enabled']), rotations };
}

export const scheduleNormalized = (item: Item): Item =>
  Array.isArray(item.rotations)
    ? {
        ...item,
        rotations: (item.rotations as Item[]).map((r) => ({
          ...r,
          ...(r.effectiveFrom !== undefined ? { effectiveFrom: instant(r.effectiveFrom) } : {}),
          ...(r.effectiveUntil !== undefined ? { effectiveUntil: instant(r.effectiveUntil) } : {}),
        })),
      }
    : item;

export function scheduleBody(item: Item, refs: Refs): Json {
  const body = stated(item, ['name', 'description', 'timezone', 'handoffNotificationMinutes', 'enabled']);
  if (Array.isArray(item.rotations))
    body.rotations = (item.rotations as Item[]).map((r) => ({
      ...stated(r, ROTATION_FIELDS),
      participants: ((r.participants ?? []) as string[]).map((email, position) => ({ userId: refs.id('user', email), position })),
    }));
  return body;
}

// ---- escalation policies (targets by name: channel, schedule, team; user by e-mail) ----

const POLICY_FIELDS = ['name', 'priority', 'ackTimeoutMinutes', 'repeatCount', 'enabled'] as const;
const TARGETS = [
  ['ALERT_CHANNEL', 'alertChannelId', 'channel'],
  ['USER', 'targetUserId', 'user'],
  ['ON_CALL_SCHEDULE', 'targetScheduleId', 'schedule'],
  ['TEAM', 'targetTeamId', 'team'],
] as const;

export function policyToFile(api: Json, refs: Refs): Item {
  const projectIds = api.projectIds as number[] | null;
  const integrations = ((api.integrationIds ?? []) as number[]).map((id) => refs.name('integration', id)).sort();
  const steps = [...((api.steps ?? []) as Json[])]
    .sort((a, b) => Number(a.position) - Number(b.position))
    .map((step) => ({
      delayMinutes: step.delayMinutes,
      targets: ((step.targets ?? []) as Json[]).map((target) => {
        const [, field, kind] = TARGETS.find(([type]) => type === target.targetType) ?? TARGETS[0];
        return { [kind]: refs.name(kind, Number(target[field])) };
      }),
    }));
  return {
    ...pick(api, ['name', 'priority']),
    // null: every project, written out so a file can ask for it.
    projects: projectIds === null ? null : projectIds.map(refs.projectName).sort(),
    ...(integrations.length > 0 ? { integrations } : {}),
    ...pick(api, ['ackTimeoutMinutes', 'repeatCount', 'enabled']),
    steps,
  };
}

export const policyNormalized = (item: Item): Item => (Array.isArray(item.projects) ? { ...item, projects: [...(item.projects as string[])].sort() } : item);

export function policyBody(item: Item, refs: Refs): Json {
  const body = stated(item, POLICY_FIELDS);
  if (item.projects === null) body.projectIds = null;
  else if (Array.isArray(item.projects)) body.projectIds = (item.projects as string[]).map(refs.projectId);
  if (Array.isArray(item.integrations)) body.integrationIds = (item.integrations as string[]).map((name) => refs.id('integration', name));
  if (Array.isArray(item.steps))
    body.steps = (item.steps as Item[]).map((step, position) => ({
      position,
      delayMinutes: step.delayMinutes,
      targets: ((step.targets ?? []) as Item[]).map((target) => {
        const [type, field, kind] = TARGETS.find(([, , k]) => typeof target[k] === 'string') ?? TARGETS[0];
        return { targetType: type, [field]: refs.id(kind, String(target[kind])) };
      }),
    }));
  return body;
}
