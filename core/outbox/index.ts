export { outboxFields, outboxWrite, type Owed, type OutboxWrite } from './owe.js';
export { itemKey, relayAfterWrite, relayOutbox, type OutboxKey, type RelayDeps, type RelayOutcome } from './relay.js';
export { relayPendingOutboxes, OUTBOX_GRACE_MS, type OutboxSweepReport } from './sweep.js';
