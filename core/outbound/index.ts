/**
 * core/outbound: the one module that sends HTTP to addresses Vigil's users choose (probes, alert
 * webhooks and Slack; subscriber webhooks will too). Nothing else may call fetch/http for them.
 */
export { classifyAddress, isBlockedAddress, BLOCKED_CIDRS } from './addresses.js';
export type { AddressPolicy, AddressVerdict } from './addresses.js';
export { parseTargetUrl, isLocalhostName } from './url.js';
export type { ParsedTarget, TargetHost, UrlCheck } from './url.js';
export { decideTarget, systemResolver } from './guard.js';
export type { GuardDecision, GuardOptions } from './guard.js';
export { createNodeConnect, nodeConnect, pinnedLookup } from './connect.js';
export type { NodeConnectOptions } from './connect.js';
export { guardedRequest } from './request.js';
export { parseHttpDate, retryAfterSeconds } from './retryAfter.js';
export { runProbe, PROBE_METHODS, PROBE_FAILURE_REASONS } from './probe.js';
export type { HttpProbeConfig, ProbeDeps, ProbeFailureReason, ProbeMethod, ProbeRunResult } from './probe.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  MAX_CUSTOM_HEADERS,
  MAX_REDIRECTS_LIMIT,
  OUTBOUND_FAILURE_REASONS,
  OutboundInputError,
} from './types.js';
export type {
  Connect,
  ConnectRequest,
  ConnectResponse,
  GuardedFailure,
  GuardedRequestDeps,
  GuardedRequestInput,
  GuardedResult,
  GuardedSuccess,
  OutboundFailureReason,
  PinnedTarget,
  ResolvedAddress,
  Resolver,
  ResponseHeaders,
} from './types.js';
