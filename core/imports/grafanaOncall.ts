import type { Ctx } from '../context.js';
import type { Deps } from '../deps.js';
import { authorize } from '../auth/authorize.js';
import { badRequest } from '../http/errors.js';
import { zodDetails } from '../http/router.js';
import { insertPolicy } from '../escalation/policies.js';
import { MAX_PRIORITY, PolicyCreate } from '../escalation/schema.js';
import { insertOverride } from '../oncall/overrides.js';
import { peopleById } from '../oncall/people.js';
import { insertSchedule, rotationsOf } from '../oncall/schedules.js';
import { OverrideCreate, ScheduleCreate } from '../oncall/schema.js';
import { policyDraftOf } from './grafanaOncallChains.js';
import { OncallExport, type OncallShift, type OncallStep } from './grafanaOncallPayload.js';
import { scheduleDraftOf } from './grafanaOncallSchedules.js';
import type { People } from './grafanaOncallShifts.js';
import type { ImportReport } from './report.js';

/**
 * The Grafana OnCall importer (docs/guide/importing.md): users matched by e-mail to members of the
 * workspace, schedules with their rotations and overrides, escalation chains as policies. Every
 * item it creates keeps the OnCall id it came from (`importRef`), so a second import of the same
 * file finds them all and changes nothing; it never edits or deletes what is already there. A
 * dry run computes the same report and writes nothing.
 */

const SOURCE = 'grafana-oncall';
const refOf = (oncallId: string) => `${SOURCE}:${oncallId}`;
/** OnCall's own routing (integrations and routes) is not imported: an imported policy waits, disabled, for its projects. */
const IMPORTED_POLICY = { projectIds: null, ackTimeoutMinutes: null, enabled: false } as const;

type Entry = ImportReport['created'][number];

/** Members of the workspace by lower-cased e-mail, and OnCall's users resolved through them. */
async function peopleOf(deps: Deps, workspaceId: number, data: OncallExport, report: ImportReport): Promise<People> {
  const members = (await deps.store.entities.membership.query.byWorkspace({ workspaceId }).go({ pages: 'all' })).data;
  const byEmail = new Map(
    [
      ...(
        await peopleById(
          deps,
          members.map((m) => m.userId),
        )
      ).values(),
    ].map((p) => [p.email.trim().toLowerCase(), p.id]),
  );
  const matched = new Map<string, number>();
  const emails = new Map(data.users.map((u) => [u.id, u.email]));
  for (const user of data.users) {
    const userId = byEmail.get(user.email.trim().toLowerCase());
    if (userId === undefined) report.skipped.push({ kind: 'user', name: user.email, reason: 'no member of this workspace has this e-mail' });
    else {
      matched.set(user.id, userId);
      report.unchanged.push({ kind: 'user', name: user.email, id: userId });
    }
  }
  return {
    userIdOf: (id) => matched.get(id),
    label: (id) => emails.get(id) ?? `${id} (not in the export's users)`,
  };
}

/** Each schedule's shifts: those its `shifts` lists, then those naming it in `schedule_id`; a shift of no schedule is reported. */
function shiftsBySchedule(data: OncallExport, report: ImportReport): Map<string, OncallShift[]> {
  const byId = new Map(data.on_call_shifts.map((s) => [s.id, s]));
  const linked = new Set<string>();
  const result = new Map<string, OncallShift[]>();
  for (const schedule of data.schedules) {
    const own = new Map<string, OncallShift>();
    for (const shiftId of schedule.shifts ?? []) {
      const shift = byId.get(shiftId);
      if (shift) own.set(shiftId, shift);
      else report.skipped.push({ kind: 'shift', name: `${schedule.name} / ${shiftId}`, reason: 'listed by the schedule but not in on_call_shifts' });
    }
    for (const shift of data.on_call_shifts) if (shift.schedule_id === schedule.id) own.set(shift.id, shift);
    for (const id of own.keys()) linked.add(id);
    result.set(schedule.id, [...own.values()]);
  }
  for (const shift of data.on_call_shifts) {
    if (!linked.has(shift.id)) report.skipped.push({ kind: 'shift', name: shift.name || shift.id, reason: 'belongs to no schedule in the export' });
  }
  return result;
}

const invalid = (error: { issues: { path: PropertyKey[]; message: string }[] }): string =>
  error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');

export async function importGrafanaOncall(ctx: Ctx, workspaceId: number, payload: unknown, options: { dryRun: boolean }): Promise<ImportReport> {
  // An API key acts at most as MEMBER, so a read-write key may import; a person must be an ADMIN, as for each item by hand.
  await authorize(ctx.deps, ctx.actor, workspaceId, ctx.actor.kind === 'apiKey' ? 'MEMBER' : 'ADMIN', 'Workspace');
  const parsed = OncallExport.safeParse(payload);
  if (!parsed.success) {
    const details = zodDetails(parsed.error);
    throw badRequest(`Not a Grafana OnCall export: ${details[0]?.path}: ${details[0]?.message}`, details);
  }
  const data = parsed.data;
  const { deps } = ctx;
  const { dryRun } = options;
  const now = deps.clock.now();
  const report: ImportReport = { source: SOURCE, dryRun, created: [], unchanged: [], skipped: [] };
  const entry = (kind: string, name: string, id?: number): Entry => (id === undefined ? { kind, name } : { kind, name, id });

  const people = await peopleOf(deps, workspaceId, data, report);
  const shifts = shiftsBySchedule(data, report);
  const { onCallSchedule, onCallOverride, escalationPolicy } = deps.store.entities;
  const [schedules, policies] = await Promise.all([
    onCallSchedule.query.byWorkspace({ workspaceId }).go({ pages: 'all' }),
    escalationPolicy.query.byWorkspace({ workspaceId }).go({ pages: 'all' }),
  ]);
  const existingSchedules = new Map(schedules.data.filter((s) => s.importRef).map((s) => [s.importRef as string, s]));
  const existingPolicies = new Map(policies.data.filter((p) => p.importRef).map((p) => [p.importRef as string, p]));

  // OnCall schedule id -> Vigil id (a dry run's schedules to be created get stand-ins no real id reaches).
  const scheduleIds = new Map<string, number>();
  let standIn = Number.MAX_SAFE_INTEGER;
  for (const schedule of data.schedules) {
    const draft = scheduleDraftOf(schedule, shifts.get(schedule.id) ?? [], people, now);
    if ('reason' in draft) {
      report.skipped.push({ kind: 'schedule', name: schedule.name || schedule.id, reason: draft.reason });
      continue;
    }
    report.skipped.push(...draft.skipped);
    const existing = existingSchedules.get(refOf(schedule.id));
    let scheduleId: number | undefined = existing?.scheduleId;
    if (existing) {
      report.unchanged.push(entry('schedule', existing.name, existing.scheduleId));
      for (const rotation of rotationsOf(existing)) report.unchanged.push(entry('rotation', `${existing.name} / ${rotation.name ?? rotation.id}`, rotation.id));
    } else {
      const input = ScheduleCreate.safeParse({
        workspaceId,
        name: draft.name,
        description: `Imported from Grafana OnCall schedule ${schedule.id}`,
        timezone: draft.timezone,
        handoffNotificationMinutes: null,
        rotations: draft.rotations,
      });
      if (!input.success) {
        report.skipped.push({ kind: 'schedule', name: draft.name, reason: invalid(input.error) });
        continue;
      }
      const created = dryRun ? undefined : await insertSchedule(deps, input.data, refOf(schedule.id));
      scheduleId = created?.scheduleId;
      report.created.push(entry('schedule', draft.name, scheduleId));
      const rotations = created ? rotationsOf(created) : [];
      draft.rotations.forEach((r, i) => report.created.push(entry('rotation', `${draft.name} / ${r.name}`, rotations[i]?.id)));
    }
    scheduleIds.set(schedule.id, scheduleId ?? standIn--);

    const have = new Map(
      existing
        ? (await onCallOverride.query.bySchedule({ scheduleId: existing.scheduleId }).go({ pages: 'all' })).data.filter((o) => o.importRef).map((o) => [o.importRef, o.overrideId])
        : [],
    );
    for (const override of draft.overrides) {
      const ref = refOf(override.shiftId);
      const overrideId = have.get(ref);
      if (overrideId !== undefined) {
        report.unchanged.push(entry('override', override.name, overrideId));
        continue;
      }
      const input = OverrideCreate.safeParse({
        scheduleId: scheduleIds.get(schedule.id),
        overrideUserId: override.overrideUserId,
        startAt: override.startAt,
        endAt: override.endAt,
        reason: `Imported from Grafana OnCall (${override.name})`.slice(0, 500),
      });
      if (!input.success) {
        report.skipped.push({ kind: 'override', name: override.name, reason: invalid(input.error) });
        continue;
      }
      const created = dryRun ? undefined : await insertOverride(deps, workspaceId, input.data, { importRef: ref });
      report.created.push(entry('override', override.name, created?.overrideId));
    }
  }

  const stepsOf = new Map<string, OncallStep[]>();
  for (const step of data.escalation_policies) {
    const list = stepsOf.get(step.escalation_chain_id);
    if (list) list.push(step);
    else stepsOf.set(step.escalation_chain_id, [step]);
  }
  const chainIds = new Set(data.escalation_chains.map((c) => c.id));
  for (const step of data.escalation_policies) {
    if (!chainIds.has(step.escalation_chain_id))
      report.skipped.push({ kind: 'escalation step', name: step.id, reason: `its chain ${step.escalation_chain_id} is not in the export` });
  }
  let priority = Math.max(-1, ...policies.data.map((p) => p.priority)) + 1;
  for (const chain of data.escalation_chains) {
    const draft = policyDraftOf(chain, stepsOf.get(chain.id) ?? [], people, (id) => scheduleIds.get(id));
    report.skipped.push(...draft.skipped);
    const existing = existingPolicies.get(refOf(chain.id));
    if (existing) {
      report.unchanged.push(entry('escalation policy', existing.name, existing.policyId));
      continue;
    }
    if (draft.steps.length === 0) {
      report.skipped.push({
        kind: 'escalation chain',
        name: draft.name,
        reason: (stepsOf.get(chain.id) ?? []).length === 0 ? 'has no steps' : 'none of its steps maps to a Vigil step',
      });
      continue;
    }
    if (priority > MAX_PRIORITY) {
      report.skipped.push({ kind: 'escalation chain', name: draft.name, reason: `no free priority left (at most ${MAX_PRIORITY})` });
      continue;
    }
    const input = PolicyCreate.safeParse({ workspaceId, name: draft.name, priority, repeatCount: draft.repeatCount, steps: draft.steps, ...IMPORTED_POLICY });
    if (!input.success) {
      report.skipped.push({ kind: 'escalation chain', name: draft.name, reason: invalid(input.error) });
      continue;
    }
    priority++;
    const created = dryRun ? undefined : await insertPolicy(deps, input.data, refOf(chain.id));
    report.created.push(entry('escalation policy', draft.name, created?.policyId));
  }
  return report;
}
