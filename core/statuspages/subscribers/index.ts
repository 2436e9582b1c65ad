/**
 * Status page subscribers (docs/guide/status-pages.md "Subscribing"): subscribing, double opt-in, unsubscribing and
 * the dashboard list. Deliveries are core/alerting's (subscriberDispatch.ts): the alerts queue's
 * idempotency, retries and DLQ.
 */
export { oneLine } from './links.js';
export { readSubscriber, subscriberMailParts } from './subscribe.js';
