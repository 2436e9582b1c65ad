/**
 * core/outbound: the one module that sends HTTP to addresses Vigil's users choose (probes, alert
 * webhooks and Slack; subscriber webhooks will too). Nothing else may call fetch/http for them.
 */
export { classifyAddress } from './addresses.js';
export { parseTargetUrl } from './url.js';
export { decideTarget, systemResolver } from './guard.js';
export { alertConnect, createNodeConnect } from './connect.js';
export { guardedRequest } from './request.js';
export { retryAfterSeconds } from './retryAfter.js';
export type { Connect, GuardedRequestDeps } from './types.js';
