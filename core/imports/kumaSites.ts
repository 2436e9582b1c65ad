import { Temporal } from 'temporal-polyfill';
import type { Ctx } from '../context.js';
import { createMaintenanceWindow, listMaintenanceWindows } from '../maintenance/windows.js';
import type { KumaMaintenance } from './kumaFormat.js';
import type { ImportReport } from './report.js';
import { orSkip } from './target.js';

const MAX_DESCRIPTION = 1_000;

/** Kuma stores a maintenance's dates as local date-times in its time zone; "SAME_AS_SERVER" (or none) is read as UTC, and said so. */
function instantOf(local: string, timezone: string | null | undefined): string {
  const zone = !timezone || timezone === 'SAME_AS_SERVER' ? 'UTC' : timezone;
  return Temporal.PlainDateTime.from(local.trim().replace(' ', 'T')).toZonedDateTime(zone).toInstant().toString();
}

const strategies: Record<string, string> = {
  manual: 'manual maintenance has no end: start a Vigil maintenance window when you need one',
  cron: 'recurring maintenance is not imported: recreate it with a recurringCron window',
  'recurring-interval': 'recurring maintenance is not imported: recreate it with a recurringCron window',
  'recurring-weekday': 'recurring maintenance is not imported: recreate it with a recurringCron window',
  'recurring-day-of-month': 'recurring maintenance is not imported: recreate it with a recurringCron window',
};

/**
 * One-off ("single") maintenance becomes a maintenance window over the import's project; identity
 * is its name and start. Kuma's window covers chosen monitors, Vigil's whole projects: said in
 * the report. Past ones, inactive ones and the other strategies are listed as skipped.
 */
export async function importKumaMaintenance(
  ctx: Ctx,
  target: { workspaceId: number; projectId: number | undefined },
  list: KumaMaintenance[],
  dryRun: boolean,
  report: ImportReport,
): Promise<void> {
  if (list.length === 0) return;
  const windows = await listMaintenanceWindows(ctx, target.workspaceId);
  const now = ctx.deps.clock.now().getTime();
  for (const m of list) {
    const item = { kind: 'maintenance', name: m.title.trim() || `maintenance ${m.id}` };
    const skip = (reason: string) => report.skipped.push({ ...item, reason });
    if (m.strategy !== 'single') {
      skip(strategies[m.strategy] ?? `strategy ${m.strategy} has no Vigil equivalent`);
      continue;
    }
    if (m.active === false) {
      skip('inactive in Uptime Kuma');
      continue;
    }
    if (!m.start_date || !m.end_date || target.projectId === undefined) {
      skip(target.projectId === undefined ? 'the workspace has no project yet' : 'it has no start and end date');
      continue;
    }
    const projectId = target.projectId;
    await orSkip(report, item, async () => {
      let startAt: string;
      let endAt: string;
      try {
        startAt = instantOf(m.start_date ?? '', m.timezone);
        endAt = instantOf(m.end_date ?? '', m.timezone);
      } catch (err) {
        skip(`its dates or time zone do not read: ${(err as Error).message}`);
        return;
      }
      const same = windows.find((w) => w.name === item.name && Date.parse(w.startAt) === Date.parse(startAt));
      if (same) {
        report.unchanged.push({ ...item, id: same.maintenanceWindowId });
        return;
      }
      if (Date.parse(endAt) <= now) {
        skip('already over');
        return;
      }
      const notes: ImportReport['skipped'] = [];
      if ((m.monitorIds ?? []).length > 0) notes.push({ ...item, reason: `Kuma held ${m.monitorIds?.length} chosen monitors; the Vigil window covers every check of the project` });
      if (!m.timezone || m.timezone === 'SAME_AS_SERVER') notes.push({ ...item, reason: 'its time zone was the Kuma server’s: read as UTC' });
      if (dryRun) {
        report.created.push(item);
      } else {
        const description = m.description ? m.description.slice(0, MAX_DESCRIPTION) : null;
        const window = await createMaintenanceWindow(ctx, {
          workspaceId: target.workspaceId,
          name: item.name,
          description,
          startAt,
          endAt,
          projectIds: [projectId],
          suppressAlerts: true,
          suppressIncidents: true,
        });
        report.created.push({ ...item, id: window.maintenanceWindowId });
      }
      report.skipped.push(...notes);
    });
  }
}
