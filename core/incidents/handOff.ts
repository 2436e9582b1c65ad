import type { Deps } from '../deps.js';
import { relayAfterWrite } from '../outbox/index.js';
import type { OutboxKey } from '../outbox/relay.js';
import type { IncidentItem } from '../store/entities/incident.js';
import type { OutboxEntry } from '../store/outbox.js';

/**
 * The relay after an incident write, with the alerts it owes sent by the writer itself where the
 * runtime allows it (`Deps.alertHandOff`: the embedded runtime's incidents consumer). The entries
 * stay in the incident's outbox through the send, so a crash before it leaves them to the sweep's
 * relay, which publishes them as before; a crash after it and before the clear publishes one the
 * alerts consumer then finds sent (its ALERT_SENT entry is the delivery's claim:
 * core/alerting/recordClaim.ts). Only what was finished is cleared unpublished: an alert with a
 * channel that failed is published and retried by the alerts queue with its backoff.
 *
 * `delivered`: entries the writer already did itself (the timeline it appended).
 *
 * A crash after the send and before the plan's write that takes the clear leaves both owed, as a
 * crash between the clear and the plan did: the sweep's relay publishes the alert, which the alerts
 * consumer finds sent, and the incident stays due at its opening for the escalation sweep.
 */
export async function relayOrHandOff(
  deps: Deps,
  incident: IncidentItem,
  key: OutboxKey,
  pending: readonly OutboxEntry[] | undefined,
  owed: readonly OutboxEntry[],
  delivered: ReadonlySet<string>,
): Promise<void> {
  const handOff = deps.alertHandOff;
  const alerts = owed.filter((entry) => entry.queue === 'alerts');
  if (!handOff || alerts.length === 0) return relayAfterWrite(deps, key, pending, delivered);
  let handed: Awaited<ReturnType<typeof handOff>> | undefined;
  try {
    handed = await handOff(deps, incident, alerts);
  } catch (err) {
    // Never fails the write it follows: what was not sent is still owed, and published below.
    console.error(`incident ${incident.incidentId}: sending its alerts failed; the outbox publishes them`, err);
  }
  const done = new Set([...delivered, ...(handed?.sent ?? [])]);
  let clear: Promise<void> | undefined;
  const separately = (): Promise<void> => (clear ??= relayAfterWrite(deps, key, pending, done));
  // Everything owed was done here (the timeline appended, every alert sent): nothing is left to
  // publish, and the clear can go in the escalation plan's write after step 0, one incident update
  // where two were, on the clear's own condition (core/outbox/relay.ts OutboxClear). Otherwise the
  // relay publishes what is left and clears first, then the plan writes, as before.
  const last = pending?.at(-1);
  const whole = handed !== undefined && last !== undefined && pending?.every((entry) => done.has(entry.id)) === true;
  if (!whole) await separately();
  try {
    await handed?.after(whole ? { lastId: last.id, separately } : undefined);
  } catch (err) {
    // The escalation plan after step 0: the incident stays due at its opening, and the sweep plans it.
    console.error(`incident ${incident.incidentId}: planning its escalation failed; the escalation sweep will`, err);
    // And its write did not take the clear, or took it and failed: the relay's own clear runs
    // (a clear already done fails its condition and leaves the rest alone).
    await separately();
  }
}
