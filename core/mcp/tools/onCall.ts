import { z } from '@hono/zod-openapi';
import type { Ctx } from '../../context.js';
import { routeProject } from '../../escalation/routing.js';
import { stepsOf } from '../../escalation/policies.js';
import { readSchedule } from '../../oncall/schedules.js';
import { onCallOf, whoIsOnCall, type OnCallNow } from '../../oncall/coverage.js';
import { keyWorkspace } from '../key.js';
import { Id } from '../schema.js';
import { defineTool, type Tool } from '../tool.js';

/** Who is on call: one schedule on request, and for explain_check the schedules a check's incident would page. */

const Instant = z.iso.datetime({ offset: true }).describe('ISO 8601 date-time with Z or an offset; default now');

export const OnCallUser = z.object({ id: z.number().int(), email: z.string(), name: z.string().nullable() });

export const OnCallEntry = z.object({
  scheduleId: z.number().int(),
  scheduleName: z.string(),
  at: z.string(),
  user: OnCallUser.nullable().describe('null: nobody is on call (a gap in the schedule)'),
  shiftStart: z.string().nullable(),
  shiftEnd: z.string().nullable(),
  overrideId: z.number().int().nullable().describe('set when an override put this person on call'),
});
export type OnCallEntry = z.infer<typeof OnCallEntry>;

const toEntry = (now: OnCallNow, scheduleName: string): OnCallEntry => ({
  scheduleId: now.scheduleId,
  scheduleName,
  at: now.at,
  user: now.user,
  shiftStart: now.shiftStart,
  shiftEnd: now.shiftEnd,
  overrideId: now.overrideId,
});

const person = (u: OnCallEntry['user']): string => (u === null ? 'nobody' : u.name ? `${u.name} <${u.email}>` : u.email || `user #${u.id}`);

export const onCallLine = (e: OnCallEntry): string =>
  `${person(e.user)} on "${e.scheduleName}" (#${e.scheduleId})` +
  (e.user && e.shiftEnd ? ` until ${e.shiftEnd}` : '') +
  (e.overrideId !== null ? ` (override #${e.overrideId})` : '');

const whoIsOnCallTool = defineTool({
  name: 'who_is_on_call',
  area: 'oncall',
  title: 'Who is on call',
  description: 'Who is on call on an on-call schedule now, or at `at`, with their shift (after overrides).',
  input: z.object({ scheduleId: Id, at: Instant.optional() }),
  output: OnCallEntry,
  effect: 'read',
  async run(ctx, { scheduleId, at }) {
    const now = await whoIsOnCall(ctx, scheduleId, at);
    // whoIsOnCall has checked the schedule is the key's; its name comes from the same record.
    const schedule = await readSchedule(ctx.deps, scheduleId);
    const data = toEntry(now, schedule?.name ?? `schedule #${scheduleId}`);
    return { data, text: `At ${data.at}: ${onCallLine(data)}.` };
  },
});

export const onCallTools: Tool[] = [whoIsOnCallTool];

export const CheckOnCall = z.object({
  policy: z.object({ id: z.number().int(), name: z.string() }).nullable().describe("the escalation policy that routes this check's project"),
  onCall: z.array(OnCallEntry).describe("now, for each on-call schedule the policy's steps target, in step order"),
  note: z.string(),
});
export type CheckOnCall = z.infer<typeof CheckOnCall>;

const NO_SCHEDULE: CheckOnCall = { policy: null, onCall: [], note: 'no schedule' };

/**
 * Who would be paged for an incident of this project: the policy choosePolicy picks (as the
 * engine and the simulation do), then who is on call now on each schedule it targets. Read with
 * the store directly, in the key's workspace only: the check was already authorized.
 */
export async function onCallForProject(ctx: Ctx, projectId: number | null): Promise<CheckOnCall> {
  if (projectId === null) return NO_SCHEDULE;
  const { deps } = ctx;
  const workspaceId = keyWorkspace(ctx);
  const choice = await routeProject(deps, workspaceId, projectId);
  if (choice.kind !== 'policy') return NO_SCHEDULE;
  const policyItem = choice.policy.item;
  const policy = { id: policyItem.policyId, name: policyItem.name };
  const scheduleIds = [...new Set(stepsOf(policyItem).flatMap((s) => s.targets.flatMap((t) => (t.targetType === 'ON_CALL_SCHEDULE' ? [t.targetScheduleId] : []))))];
  const at = deps.clock.now();
  const found = await Promise.all(
    scheduleIds.map(async (id) => {
      const schedule = await readSchedule(deps, id);
      // A disabled or foreign schedule pages nobody; it is left out rather than named.
      if (!schedule || schedule.workspaceId !== workspaceId || !schedule.enabled) return null;
      return toEntry(await onCallOf(deps, schedule, at), schedule.name);
    }),
  );
  const onCall = found.filter((e) => e !== null);
  if (onCall.length === 0) return { policy, onCall, note: `no schedule (policy "${policy.name}" targets none)` };
  return { policy, onCall, note: `policy "${policy.name}": ${onCall.map(onCallLine).join('; ')}` };
}
