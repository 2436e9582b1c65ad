import { IncidentAlert, unfinishedOf, type AlertHandlerOptions } from '../alerting/dispatch.js';
import type { AlertHandOff } from '../deps.js';
import type { OutboxClear } from '../store/outbox.js';
import { dispatchRoutedIncidentAlert } from './dispatch.js';

/**
 * The alerts consumer's incident dispatch, run by the incidents consumer for the alerts its own
 * incident writes owe (`Deps.alertHandOff`, core/incidents/handOff.ts): in a mass outage each flip
 * owed two `alerts` messages (the opening's, the raise's), each a publish, a lease, an
 * acknowledgement and an incident get. The same dispatch with the same options as the alerts
 * consumer it stands in for (core/runtime.ts), with two differences:
 *
 * - The incident is the one the write left, not read again; the dispatch's own incident writes
 *   (the escalation planned after step 0, or held) wait until the writer's outbox is cleared.
 * - A channel that failed recently is not tried here (`deferRecentlyFailed`): the alert is then
 *   published, and the alerts queue retries that channel with its backoff. A send that fails here
 *   is published the same way. The claims make the channels already told ALREADY_SENT there.
 *
 * Escalation steps (`incident.escalation_step`) are only owed by the escalation's advance, which
 * runs here only in the plan after step 0; they are published as before.
 */
export function alertHandOff(options: AlertHandlerOptions): AlertHandOff {
  return async (writerDeps, incident, entries) => {
    // The dispatch's own writes publish what they owe: a hand-off inside a hand-off is not wanted.
    const { alertHandOff: _nested, ...deps } = writerDeps;
    const sent = new Set<string>();
    const writes: ((clearing?: OutboxClear) => Promise<void>)[] = [];
    for (const entry of entries) {
      const message = IncidentAlert.safeParse(JSON.parse(entry.body));
      if (!message.success) continue;
      const outcome = await dispatchRoutedIncidentAlert(
        deps,
        message.data,
        deps.clock.now(),
        { ...options, deferRecentlyFailed: true },
        {
          incident,
          later: (write) => writes.push(write),
        },
      );
      if (!unfinishedOf(outcome)) sent.add(entry.id);
    }
    return {
      sent,
      after: async (clearing) => {
        // The first write takes the outbox clear (core/incidents/repository.ts applyIncidentInput);
        // the rest follow it, so every one of them runs after the clear, as before.
        const [first, ...rest] = writes;
        if (!first) return clearing?.separately();
        await first(clearing);
        for (const write of rest) await write();
      },
    };
  };
}
