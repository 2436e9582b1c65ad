import type { Ctx } from '../context.js';
import { noticeDueFields } from '../store/escalationDue.js';
import { isConditionalFailure } from '../store/conditional.js';
import { authorize } from '../auth/authorize.js';
import { roleAtLeast } from '../auth/roles.js';
import type { Deps } from '../deps.js';
import { forbidden, notFound } from '../http/errors.js';
import type { OnCallOverrideItem } from '../store/entities/onCallOverride.js';
import { requireWorkspaceMembers } from './people.js';
import type { OverrideSpec } from './rotation.js';
import type { Override, OverrideCreate } from './schema.js';

/**
 * Overrides of a schedule. ADMIN creates and deletes any; a MEMBER creates overrides that put
 * themselves on call, and deletes those they created (a swap they no longer need).
 */

export const toOverride = (o: OnCallOverrideItem): Override => ({
  id: o.overrideId,
  scheduleId: o.scheduleId,
  overrideUserId: o.overrideUserId,
  startAt: o.startAt,
  endAt: o.endAt,
  replacedUserId: o.replacedUserId ?? null,
  reason: o.reason ?? null,
  createdAt: o.createdAt,
});

export const toOverrideSpec = (o: OnCallOverrideItem): OverrideSpec => ({
  id: o.overrideId,
  overrideUserId: o.overrideUserId,
  startAt: o.startAt,
  endAt: o.endAt,
  replacedUserId: o.replacedUserId ?? null,
  createdAt: o.createdAt,
});

/**
 * Overrides of a schedule overlapping `[from, to)` (UTC ISO strings), by end time: the key
 * condition reads those ending after `from`, the filter keeps those starting before `to`.
 */
export async function overridesTouching(deps: Deps, scheduleId: number, from: string, to: string): Promise<OnCallOverrideItem[]> {
  const found = await deps.store.entities.onCallOverride.query
    .bySchedule({ scheduleId })
    .gt({ endAt: from })
    .where((attr, op) => op.lt(attr.startAt, to))
    .go({ pages: 'all' });
  return found.data.filter((o) => o.endAt > from && o.startAt < to);
}

export async function createOverride(ctx: Ctx, input: OverrideCreate): Promise<Override> {
  const schedule = (await ctx.deps.store.entities.onCallSchedule.get({ scheduleId: input.scheduleId }).go()).data;
  if (!schedule) throw notFound('On-call schedule');
  const scope = await authorize(ctx.deps, ctx.actor, schedule.workspaceId, 'MEMBER', 'On-call schedule');
  const self = ctx.actor.kind === 'user' ? ctx.actor.userId : undefined;
  if (!roleAtLeast(scope.role, 'ADMIN') && input.overrideUserId !== self) throw forbidden('A MEMBER may only create overrides that put themselves on call');
  return toOverride(await insertOverride(ctx.deps, schedule.workspaceId, input, { createdBy: self }));
}

/**
 * The write behind `createOverride`, for a caller that has checked scope itself and holds a
 * schedule of `workspaceId` (an importer, which stores the source's id as `importRef`).
 */
export async function insertOverride(
  deps: Deps,
  workspaceId: number,
  input: OverrideCreate,
  origin: { createdBy?: number | undefined; importRef?: string },
): Promise<OnCallOverrideItem> {
  await requireWorkspaceMembers(deps, workspaceId, [input.overrideUserId, ...(input.replacedUserId === null ? [] : [input.replacedUserId])]);
  const iso = deps.clock.now().toISOString();
  const overrideId = await deps.store.nextId('onCallOverride');
  const created = await deps.store.entities.onCallOverride
    .create({
      overrideId,
      scheduleId: input.scheduleId,
      workspaceId,
      overrideUserId: input.overrideUserId,
      startAt: new Date(input.startAt).toISOString(),
      endAt: new Date(input.endAt).toISOString(),
      replacedUserId: input.replacedUserId ?? undefined,
      reason: input.reason ?? undefined,
      createdBy: origin.createdBy,
      importRef: origin.importRef,
      createdAt: iso,
    })
    .go();
  await noticeAgain(deps, input.scheduleId);
  return created.data;
}

/** An override moves shifts: the notice sweep looks at the schedule again at once. A schedule deleted meanwhile is left alone. */
async function noticeAgain(deps: Deps, scheduleId: number): Promise<void> {
  try {
    await deps.store.entities.onCallSchedule.patch({ scheduleId }).set(noticeDueFields(deps.clock.now())).go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

export async function deleteOverride(ctx: Ctx, overrideId: number): Promise<void> {
  const override = (await ctx.deps.store.entities.onCallOverride.get({ overrideId }).go()).data;
  if (!override) throw notFound('On-call override');
  const scope = await authorize(ctx.deps, ctx.actor, override.workspaceId, 'MEMBER', 'On-call override');
  const self = ctx.actor.kind === 'user' ? ctx.actor.userId : undefined;
  const own = self !== undefined && override.createdBy === self && override.overrideUserId === self;
  if (!roleAtLeast(scope.role, 'ADMIN') && !own) throw forbidden('A MEMBER may only delete their own overrides');
  await ctx.deps.store.entities.onCallOverride.delete({ overrideId }).go();
  await noticeAgain(ctx.deps, override.scheduleId);
}
