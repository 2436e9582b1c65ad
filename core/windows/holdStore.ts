import type { Deps } from '../deps.js';
import { untilProcessed } from '../store/batch.js';
import type { WindowHoldItem } from '../store/entities/windowHold.js';

export type HoldSpec = Omit<WindowHoldItem, 'projectId' | 'expiresAt'>;
type HoldKey = Pick<WindowHoldItem, 'projectId' | 'kind' | 'windowId'>;

const DAY_SECONDS = 86_400;

/**
 * Writes (or overwrites: the key is project + kind + window) the holds of one window on each of
 * its projects. Idempotent, so a retried or repeated step rewrites the same items.
 */
export async function putHolds(deps: Deps, projectIds: readonly number[], spec: HoldSpec): Promise<void> {
  const expiresAt = spec.endsAt === undefined ? undefined : Math.floor(Date.parse(spec.endsAt) / 1000) + DAY_SECONDS;
  const byProject = new Map(projectIds.map((projectId) => [projectId, { ...spec, projectId, ...(expiresAt === undefined ? {} : { expiresAt }) }]));
  await untilProcessed(
    [...byProject.values()],
    async (items) => {
      const result = await deps.store.entities.windowHold.put(items).go();
      return result.unprocessed.flatMap((key) => byProject.get(key.projectId) ?? []);
    },
    'window holds',
  );
}

/** Deletes the holds of one window on the given projects; deleting a missing hold is a no-op. */
export async function deleteHolds(deps: Deps, projectIds: readonly number[], window: Omit<HoldKey, 'projectId'>): Promise<void> {
  const keys: HoldKey[] = projectIds.map((projectId) => ({ projectId, kind: window.kind, windowId: window.windowId }));
  await untilProcessed(
    keys,
    async (batch) => {
      const result = await deps.store.entities.windowHold.delete(batch).go();
      return result.unprocessed.map((key) => ({ projectId: key.projectId, kind: key.kind, windowId: key.windowId }));
    },
    'window hold deletes',
  );
}
