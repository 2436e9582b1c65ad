import type { LocalDeps } from '../runtime.js';
import { rearmProbeSchedules, runSchedule } from '../probes/scheduled.js';

/**
 * The embedded runtime's probes: the local scheduler runs every schedule at its interval, in
 * process, for each region (loopback allowed only with VIGIL_PROBE_ALLOW_PRIVATE), and the
 * outbound checks stored before this boot get their schedules back. Returns when re-arming is done.
 */
export async function startLocalProbes(deps: LocalDeps): Promise<number> {
  deps.scheduler.start(async (schedule) => {
    if (schedule.target === 'probe') await runSchedule(deps, schedule);
  });
  return rearmProbeSchedules(deps);
}
