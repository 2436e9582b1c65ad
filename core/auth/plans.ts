import { HttpError } from '../http/errors.js';
import type { Plan } from '../store/entities/workspace.js';

export type { Plan } from '../store/entities/workspace.js';

/** The one limits table. Self-hosted installs default to BUSINESS (VIGIL_DEFAULT_PLAN). */
export const PLAN_LIMITS = {
  FREE: { checks: 20, dependencies: 25, outboundChecks: 5, intervalFloorSeconds: 300, outboundIntervalFloorSeconds: 300, canMute: false, statusPageSubscribers: 100 },
  TEAM: { checks: 200, dependencies: 250, outboundChecks: 50, intervalFloorSeconds: 60, outboundIntervalFloorSeconds: 60, canMute: true, statusPageSubscribers: 2_000 },
  BUSINESS: {
    checks: 10_000,
    dependencies: 2_000,
    outboundChecks: 1_000,
    intervalFloorSeconds: 10,
    outboundIntervalFloorSeconds: 10,
    canMute: true,
    statusPageSubscribers: 10_000,
  },
} as const satisfies Record<Plan, PlanLimits>;

export type PlanLimits = {
  checks: number;
  /** Manual and reported (ping payload) dependencies together. */
  dependencies: number;
  outboundChecks: number;
  intervalFloorSeconds: number;
  outboundIntervalFloorSeconds: number;
  canMute: boolean;
  /** Subscribers of one status page, pending ones included (a page is not a mailing list of any size). */
  statusPageSubscribers: number;
};

export const planLimitExceeded = (message: string): HttpError => new HttpError('PLAN_LIMIT_EXCEEDED', message);
