export { outboxFields, outboxWrite, type Owed, type OutboxWrite } from './owe.js';
export { handOffAfterWrite, itemKey, relayAfterWrite, relayOutbox } from './relay.js';
export { relayPendingOutboxes, OUTBOX_GRACE_MS } from './sweep.js';
