import type { Deps } from '../deps.js';
import type { CheckItem } from '../store/entities/check.js';
import { effectiveRegions, readOutboundConfig, type ProbeRegion } from './outboundSchema.js';

export const probeScheduleName = (checkId: number, region: string): string => `probe-${checkId}-${region}`;

/** The regions a check is probed from now; none for inbound, deleted or inconsistent checks. */
export function probeRegionsOf(check: CheckItem | undefined, homeRegion: ProbeRegion): ProbeRegion[] {
  if (!check || check.checkMode !== 'OUTBOUND' || check.deletedAt !== undefined) return [];
  const config = readOutboundConfig(check.outbound);
  return config ? effectiveRegions(config, homeRegion) : [];
}

/**
 * Keeps one probe schedule per region of an outbound check (docs/guide/probes.md): upserts the current
 * regions (disabled while paused) and removes the ones `before` had that `after` no longer has.
 * Upserts are idempotent, so a retried request converges on the same schedules.
 */
export async function syncProbeSchedules(deps: Deps, before: CheckItem | undefined, after: CheckItem | undefined): Promise<void> {
  const home = deps.config.homeRegion;
  const current = probeRegionsOf(after, home);
  const dropped = probeRegionsOf(before, home).filter((region) => !current.includes(region));
  if (after) {
    for (const region of current) {
      await deps.scheduler.upsert({
        name: probeScheduleName(after.checkId, region),
        everySeconds: after.intervalSeconds,
        payload: { checkId: after.checkId, region },
        target: 'probe',
        region,
        enabled: after.status !== 'PAUSED',
      });
    }
  }
  const checkId = after?.checkId ?? before?.checkId;
  if (checkId === undefined) return;
  for (const region of dropped) await deps.scheduler.remove(probeScheduleName(checkId, region));
}
