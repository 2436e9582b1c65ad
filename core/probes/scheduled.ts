import { z } from 'zod';
import { PROBE_REGIONS } from '../checks/outboundSchema.js';
import { listWorkspaceChecks } from '../checks/repository.js';
import { syncProbeSchedules } from '../checks/schedules.js';
import type { Deps } from '../deps.js';
import type { ScheduleSpec } from '../ports/index.js';
import { runProbeForRegion, type ProbeReport, type RunProbeOptions } from './runner.js';

/** What a probe schedule delivers (core/checks/schedules.ts writes it; EventBridge passes it as the event). */
export const ProbeEvent = z.object({
  checkId: z.number().int().positive(),
  region: z.enum(PROBE_REGIONS),
});

/**
 * The probe Lambda's body and the local scheduler's runner: validates the schedule payload and
 * runs the probe. A malformed payload is logged and dropped (retrying it cannot help).
 */
export async function handleProbeEvent(deps: Deps, event: unknown, options: RunProbeOptions = {}): Promise<ProbeReport | null> {
  const parsed = ProbeEvent.safeParse(event);
  if (!parsed.success) {
    console.error('probe: dropping malformed schedule payload', parsed.error.issues[0]);
    return null;
  }
  return runProbeForRegion(deps, parsed.data, options);
}

export const runSchedule = (deps: Deps, schedule: ScheduleSpec): Promise<ProbeReport | null> => handleProbeEvent(deps, schedule.payload);

/**
 * The local scheduler keeps its schedules in memory, so a restarted server must be told about
 * the outbound checks that already exist (EventBridge keeps them on AWS). One query of the
 * checks-by-workspace index per workspace id; each outbound check's schedules are upserted
 * through core/checks/schedules.ts, as a create would, so paused checks stay disabled.
 */
export async function rearmProbeSchedules(deps: Deps): Promise<number> {
  let armed = 0;
  const highest = await deps.store.currentId('workspace');
  for (let workspaceId = 1; workspaceId <= highest; workspaceId++) {
    for (const check of await listWorkspaceChecks(deps, workspaceId)) {
      if (check.checkMode !== 'OUTBOUND') continue;
      await syncProbeSchedules(deps, undefined, check);
      armed++;
    }
  }
  return armed;
}
