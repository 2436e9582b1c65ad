/**
 * core/probes: outbound HTTP probes from each region, their run records, rounds and rollups, the
 * OUTBOUND status rule, and the outbound read APIs. The probe itself (SSRF guard, HTTP exchange)
 * is core/outbound's.
 */
export { runProbeForRegion, toHttpProbeConfig } from './runner.js';
export type { ProbeReport, ProbeTarget, RunProbeOptions } from './runner.js';
export { handleProbeEvent, ProbeEvent, rearmProbeSchedules, runSchedule } from './scheduled.js';
export { classifyRound, evaluateRound, roundLengthMs, roundStartOf } from './rules.js';
export type { StreakState, RoundOutcome, RoundResults, RoundVerdict, StatusFlip, StatusThresholds } from './rules.js';
export { probeStateOf } from './outbound.js';
export { dailyRollups } from './rollups.js';
export { probeRoutes } from './routes.js';
export { startLocalProbes } from './local.js';
export type { OutboundDetails, OutboundStats, OutboundTimeline, ProbeRun, ProbeState } from './schema.js';
