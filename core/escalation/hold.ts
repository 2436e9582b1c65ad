import type { Deps } from '../deps.js';
import { readIncident } from '../incidents/repository.js';
import { retryOnConflict } from '../store/conditional.js';
import { dueFields } from '../store/escalationDue.js';

/**
 * The opening message found a maintenance window suppressing alerts: step 0 was not sent, so the
 * first run is marked held and due now; the sweep keeps it held while the window lasts and starts
 * again from step 0 once it is over. A conditional write on the revision, like every incident move.
 */
export async function markHeld(deps: Deps, incidentId: number, now: Date): Promise<void> {
  await retryOnConflict(
    async () => {
      const incident = await readIncident(deps, incidentId);
      if (!incident || incident.state === 'RESOLVED' || incident.escalationEpoch !== 0 || incident.escalationHeld) return;
      await deps.store.entities.incident
        .patch({ incidentId })
        .set({ escalationHeld: true, revision: incident.revision + 1, ...dueFields(incidentId, now) })
        .where((attr, op) => op.eq(attr.revision, incident.revision))
        .go();
    },
    { attempts: 4, what: `holding the escalation of incident ${incidentId}` },
  );
}
