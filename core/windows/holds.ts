import type { Deps } from '../deps.js';
import { readOncePerBatch } from '../store/batchReads.js';
import type { WindowHoldItem } from '../store/entities/windowHold.js';

export type WindowEffects = {
  /** An ACTIVE deployment window covers the project: no LATE/DOWN transitions (spec). */
  deploymentActive: boolean;
  /** An ACTIVE maintenance window with suppressIncidents covers the project. */
  suppressIncidents: boolean;
  /** An ACTIVE maintenance window with suppressAlerts covers the project. */
  suppressAlerts: boolean;
};

export const NO_WINDOW: WindowEffects = { deploymentActive: false, suppressIncidents: false, suppressAlerts: false };

/** A hold covers `now` from its start (inclusive) to its end (exclusive); no end: until deleted. */
export function holdCovers(hold: Pick<WindowHoldItem, 'startsAt' | 'endsAt'>, now: Date): boolean {
  const at = now.getTime();
  if (Date.parse(hold.startsAt) > at) return false;
  return hold.endsAt === undefined || Date.parse(hold.endsAt) > at;
}

/** Folds the holds that cover `now` into the effects; pure, so the rule is tested on its own. */
export function effectsOf(holds: readonly WindowHoldItem[], workspaceId: number, now: Date): WindowEffects {
  const effects = { ...NO_WINDOW };
  for (const hold of holds) {
    if (hold.workspaceId !== workspaceId || !holdCovers(hold, now)) continue;
    if (hold.kind === 'DEPLOYMENT') effects.deploymentActive = true;
    else {
      effects.suppressIncidents ||= hold.suppressIncidents;
      effects.suppressAlerts ||= hold.suppressAlerts;
    }
  }
  return effects;
}

/**
 * What deployment and maintenance windows mean for a project at `now`. The sweep asks before
 * moving a check to LATE/DOWN; the incident worker asks before opening an incident; alert
 * dispatch asks before sending. One strongly consistent query of the project's own partition
 * (core/windows/holdStore.ts writes the holds). A check without a project (a dependency's check)
 * is covered by no window: windows target projects.
 */
export async function windowEffects(deps: Deps, target: { workspaceId: number; projectId: number | null }, now: Date): Promise<WindowEffects> {
  if (target.projectId === null) return NO_WINDOW;
  const { projectId } = target;
  const holds = await readOncePerBatch(deps, `windowHolds#${projectId}`, () =>
    deps.store.entities.windowHold.query.byProject({ projectId }).go({ pages: 'all', consistent: true }),
  );
  return effectsOf(holds.data, target.workspaceId, now);
}
