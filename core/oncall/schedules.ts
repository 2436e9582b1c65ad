import { z } from '@hono/zod-openapi';
import { noticeDueFields } from '../store/escalationDue.js';
import type { Ctx } from '../context.js';
import { authorize, manageRole } from '../auth/authorize.js';
import type { Role } from '../auth/roles.js';
import type { Deps } from '../deps.js';
import { conflict, notFound } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { retryOnConflict } from '../store/conditional.js';
import type { OnCallScheduleItem } from '../store/entities/onCallSchedule.js';
import { pageOfQuery } from '../store/page.js';
import { refuseIfTargeted } from '../escalation/policyTargets.js';
import { overridesTouching, toOverride } from './overrides.js';
import { requireWorkspaceMembers } from './people.js';
import { Rotation, type RotationInput, type Schedule, type ScheduleCreate, type ScheduleUpdate } from './schema.js';
import { untilProcessed } from '../store/batch.js';

/** On-call schedules with their rotations (docs/guide/oncall-and-escalation.md). */

const StoredRotations = z.array(Rotation);
const FAR_FUTURE = '9999-12-31T23:59:59.999Z';

export const rotationsOf = (schedule: OnCallScheduleItem): Rotation[] => StoredRotations.parse(JSON.parse(schedule.rotationsJson));

/** Instants are kept in UTC (`...Z`) so they compare as strings and read back the same everywhere. */
const utc = (at: string): string => new Date(at).toISOString();

async function toRotations(deps: Deps, inputs: readonly RotationInput[]): Promise<Rotation[]> {
  return Promise.all(
    inputs.map(async (r) => ({
      id: await deps.store.nextId('onCallRotation'),
      name: r.name ?? null,
      type: r.type,
      layerPosition: r.layerPosition,
      effectiveFrom: utc(r.effectiveFrom),
      effectiveUntil: r.effectiveUntil === null ? null : utc(r.effectiveUntil),
      handoffTime: r.handoffTime,
      handoffDay: r.handoffDay,
      customShiftHours: r.customShiftHours ?? null,
      participants: [...r.participants].sort((a, b) => a.position - b.position),
    })),
  );
}

const participantsOf = (rotations: readonly RotationInput[]): number[] => rotations.flatMap((r) => r.participants.map((p) => p.userId));

/** The response: the schedule, its rotations, and its current and upcoming overrides. */
export async function toSchedule(deps: Deps, schedule: OnCallScheduleItem): Promise<Schedule> {
  const now = deps.clock.now().toISOString();
  const overrides = await overridesTouching(deps, schedule.scheduleId, now, FAR_FUTURE);
  return {
    id: schedule.scheduleId,
    workspaceId: schedule.workspaceId,
    name: schedule.name,
    description: schedule.description ?? null,
    timezone: schedule.timezone,
    handoffNotificationMinutes: schedule.handoffNotificationMinutes ?? null,
    enabled: schedule.enabled,
    rotations: rotationsOf(schedule),
    overrides: overrides.map(toOverride),
    createdAt: schedule.createdAt,
    updatedAt: schedule.updatedAt,
  };
}

export async function readSchedule(deps: Deps, scheduleId: number, consistent = false): Promise<OnCallScheduleItem | null> {
  return (await deps.store.entities.onCallSchedule.get({ scheduleId }).go({ consistent })).data;
}

/** A schedule the caller may act on at `minimum`, or 404: missing and foreign look the same. */
export async function loadSchedule(ctx: Ctx, scheduleId: number, minimum: Role, consistent = false): Promise<{ schedule: OnCallScheduleItem; role: Role }> {
  const schedule = await readSchedule(ctx.deps, scheduleId, consistent);
  if (!schedule) throw notFound('On-call schedule');
  const scope = await authorize(ctx.deps, ctx.actor, schedule.workspaceId, minimum, 'On-call schedule');
  return { schedule, role: scope.role };
}

/** For other areas holding schedule ids (escalation targets): the schedule if it is of `workspaceId`, else 404. */
export async function findScheduleInWorkspace(deps: Deps, workspaceId: number, scheduleId: number): Promise<OnCallScheduleItem> {
  const schedule = await readSchedule(deps, scheduleId);
  if (!schedule || schedule.workspaceId !== workspaceId) throw notFound('On-call schedule');
  return schedule;
}

export async function createSchedule(ctx: Ctx, input: ScheduleCreate): Promise<Schedule> {
  await authorize(ctx.deps, ctx.actor, input.workspaceId, manageRole(ctx.actor), 'Workspace');
  return toSchedule(ctx.deps, await insertSchedule(ctx.deps, input));
}

/**
 * The write behind `createSchedule`, for a caller that has checked scope itself (an importer,
 * which also stores the source's id as `importRef` so a second import finds the schedule).
 */
export async function insertSchedule(deps: Deps, input: ScheduleCreate, importRef?: string): Promise<OnCallScheduleItem> {
  await requireWorkspaceMembers(deps, input.workspaceId, participantsOf(input.rotations));
  const iso = deps.clock.now().toISOString();
  const scheduleId = await deps.store.nextId('onCallSchedule');
  const created = await deps.store.entities.onCallSchedule
    .create({
      scheduleId,
      workspaceId: input.workspaceId,
      name: input.name,
      description: input.description ?? undefined,
      timezone: input.timezone,
      handoffNotificationMinutes: input.handoffNotificationMinutes ?? undefined,
      enabled: input.enabled,
      rotationsJson: JSON.stringify(await toRotations(deps, input.rotations)),
      importRef,
      // The notice sweep looks at a new or edited schedule at once (core/escalation/notices.ts).
      ...noticeDueFields(deps.clock.now()),
      revision: 1,
      createdAt: iso,
      updatedAt: iso,
    })
    .go();
  return created.data;
}

export async function listSchedules(ctx: Ctx, query: { workspaceId: number; page: number; limit: number }): Promise<Page<Schedule>> {
  await authorize(ctx.deps, ctx.actor, query.workspaceId, 'VIEWER', 'Workspace');
  const schedules = ctx.deps.store.entities.onCallSchedule.query.byWorkspace({ workspaceId: query.workspaceId });
  return pageOfQuery(ctx.deps.store, schedules, query.page, query.limit, (s) => toSchedule(ctx.deps, s));
}

export async function getSchedule(ctx: Ctx, scheduleId: number): Promise<Schedule> {
  return toSchedule(ctx.deps, (await loadSchedule(ctx, scheduleId, 'VIEWER')).schedule);
}

const lostRaces = () => conflict('The schedule kept changing while this request ran; try again');

/** Changed fields only; a supplied `rotations` array replaces every rotation. One write, conditional on the revision read. */
export async function updateSchedule(ctx: Ctx, scheduleId: number, input: ScheduleUpdate): Promise<Schedule> {
  const { schedule: first } = await loadSchedule(ctx, scheduleId, manageRole(ctx.actor));
  if (input.rotations) await requireWorkspaceMembers(ctx.deps, first.workspaceId, participantsOf(input.rotations));
  const rotationsJson = input.rotations ? JSON.stringify(await toRotations(ctx.deps, input.rotations)) : undefined;
  const updated = await retryOnConflict(
    async (attempt) => {
      const current = attempt === 1 ? first : await readSchedule(ctx.deps, scheduleId, true);
      if (!current) throw notFound('On-call schedule');
      let patch = ctx.deps.store.entities.onCallSchedule.patch({ scheduleId }).set({
        revision: current.revision + 1,
        updatedAt: ctx.deps.clock.now().toISOString(),
        ...noticeDueFields(ctx.deps.clock.now()),
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(typeof input.description === 'string' ? { description: input.description } : {}),
        ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
        ...(typeof input.handoffNotificationMinutes === 'number' ? { handoffNotificationMinutes: input.handoffNotificationMinutes } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        ...(rotationsJson !== undefined ? { rotationsJson } : {}),
      });
      const removed = [
        ...(input.description === null ? (['description'] as const) : []),
        ...(input.handoffNotificationMinutes === null ? (['handoffNotificationMinutes'] as const) : []),
      ];
      if (removed.length > 0) patch = patch.remove(removed);
      const written = await patch.where((attr, op) => op.eq(attr.revision, current.revision)).go({ response: 'all_new' });
      return written.data as OnCallScheduleItem;
    },
    { onExhausted: lostRaces, what: 'schedule update' },
  );
  return toSchedule(ctx.deps, updated);
}

/** Refused (409) while a policy targets the schedule; otherwise its overrides go with it. */
export async function deleteSchedule(ctx: Ctx, scheduleId: number): Promise<void> {
  const { schedule } = await loadSchedule(ctx, scheduleId, manageRole(ctx.actor));
  await refuseIfTargeted(ctx.deps.store, schedule.workspaceId, 'ON_CALL_SCHEDULE', scheduleId, `On-call schedule ${scheduleId}`);
  const { onCallOverride, onCallSchedule } = ctx.deps.store.entities;
  const overrides = (await onCallOverride.query.bySchedule({ scheduleId }).go({ pages: 'all' })).data;
  await untilProcessed(
    overrides.map((o) => ({ overrideId: o.overrideId })),
    async (keys) => (await onCallOverride.delete(keys).go()).unprocessed,
    'override deletes',
  );
  await onCallSchedule.delete({ scheduleId }).go();
}
