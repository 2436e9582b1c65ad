import type { Deps } from '../deps.js';
import type { OutboxClear } from '../store/outbox.js';
import { applyEscalationInput } from './advance.js';

/**
 * The opening message found a maintenance window suppressing alerts: step 0 was not sent, so the
 * first run is marked held and due now; the sweep keeps it held while the window lasts and starts
 * again from step 0 once it is over. The `hold` event of the incident's state machine
 * (core/incidents/transition.ts), written like every incident move.
 */
export async function markHeld(deps: Deps, incidentId: number, now: Date, clearing?: OutboxClear): Promise<void> {
  await applyEscalationInput(deps, incidentId, { type: 'hold' }, now, undefined, clearing);
}
