import type { Deps } from '../deps.js';

export type WindowEffects = {
  /** An ACTIVE deployment window covers the project: no LATE/DOWN transitions (spec). */
  deploymentActive: boolean;
  /** An ACTIVE maintenance window with suppressIncidents covers the project. */
  suppressIncidents: boolean;
  /** An ACTIVE maintenance window with suppressAlerts covers the project. */
  suppressAlerts: boolean;
};

export const NO_WINDOW: WindowEffects = { deploymentActive: false, suppressIncidents: false, suppressAlerts: false };

/**
 * What deployment and maintenance windows mean for a project at `now`. The sweep asks before
 * moving a check to LATE/DOWN; the incident worker asks before opening an incident; alert
 * dispatch asks before sending. Deployment and maintenance windows fill this in
 * (core/deployments, core/maintenance).
 */
export async function windowEffects(
  deps: Deps,
  target: { workspaceId: number; projectId: number | null },
  now: Date,
): Promise<WindowEffects> {
  void deps;
  void target;
  void now;
  return NO_WINDOW;
}
