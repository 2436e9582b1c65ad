/** core/checks: what other areas may call. */
export { pauseCheck, resumeCheck } from './pause.js';
export type { PauseCause, PauseOptions } from './pause.js';
export { createHeartbeatJob } from './v1.js';
export { findCheckBySlug, loadCheck, readCheckById, readCheckByToken, listWorkspaceChecks, listProjectChecks, slugScope } from './repository.js';
export { softDeleteCheck } from './lifecycle.js';
export { syncProbeSchedules, probeScheduleName, probeRegionsOf } from './schedules.js';
export { checkRoutes } from './routes.js';
export { pingUrlOf, toDashboardCheck, toJobV1, toCheckV1 } from './views.js';
export {
  OutboundConfig,
  OutboundConfigPatch,
  OutboundConfigView,
  PROBE_REGIONS,
  effectiveRegions,
  readOutboundConfig,
  parseOutboundConfig,
} from './outboundSchema.js';
export type { ProbeRegion } from './outboundSchema.js';
