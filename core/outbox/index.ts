export { outboxFields, outboxWrite, type Owed, type OutboxWrite } from './owe.js';
export { itemKey, relayAfterWrite, relayOutbox, relayPendingOutboxes, OUTBOX_GRACE_MS, type OutboxKey, type OutboxSweepReport, type RelayOutcome } from './relay.js';
