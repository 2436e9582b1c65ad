import type { Deps } from '../deps.js';
import { sweepHeartbeats } from './heartbeats.js';
import { sweepMissedRuns } from './missedRuns.js';
import { processDeployments } from '../deployments/processor.js';
import { processMaintenanceWindows } from '../maintenance/processor.js';
import { relayPendingOutboxes } from '../outbox/sweep.js';
import { sweepEscalations } from '../escalation/sweep.js';
import { sweepOnCallNotices } from '../escalation/notices.js';
import { processScheduledAnnouncements } from '../statuspages/announcements.js';
import { processCustomDomains } from '../statuspages/customDomain.js';

/**
 * One step of the evaluator sweep (locally every `VIGIL_SWEEP_SECONDS`, on AWS once a minute). A
 * step gets the sweep's single instant and returns a small report. Steps must be idempotent and
 * read only what is due (an index query), never every item.
 */
export type SweepStep = { name: string; run(deps: Deps, now: Date): Promise<unknown> };

/**
 * The steps every sweep runs, in order. A new kind of timed work (as the escalation steps did) adds its
 * own entry here, one line each.
 */
export const SWEEP_STEPS: readonly SweepStep[] = [
  // Windows first: a deployment that ends this sweep resumes its checks before they are judged.
  { name: 'deployments', run: processDeployments },
  { name: 'maintenance-windows', run: processMaintenanceWindows },
  // Escalation steps, repeats and ack timeouts that fell due (only those: the escalation-due index).
  // Before the flips: an incident opens due at its opening instant, and its opening's handler plans
  // it moments later (core/escalation/sweep.ts planOpenedEscalation). Run after them, this step
  // read the incidents this sweep's own flips had just opened (the embedded runtime hands the flips
  // to its incidents worker at once: docs/adr/0017-status-changes-skip-the-local-queue.md) while
  // their handlers were still planning them: 66 reads for 40 due checks in the bench's 1%-silent window.
  { name: 'escalations', run: sweepEscalations },
  // Handoff and coverage-gap notices of the schedules due for a look (the same index, its own shard).
  { name: 'on-call-notices', run: sweepOnCallNotices },
  { name: 'heartbeats', run: sweepHeartbeats },
  // Runs (`/start?rid=`) whose end has not come within their allowance: the missed-run index.
  { name: 'missed-runs', run: sweepMissedRuns },
  { name: 'status-page-maintenance', run: processScheduledAnnouncements },
  // Unverified custom-domain claims that lapsed (7 days) and verified domains due for their daily DNS re-check.
  { name: 'status-page-domains', run: processCustomDomains },
  // The outbox safety net last: it relays what any write (these steps' included) left owed.
  { name: 'outbox', run: relayPendingOutboxes },
];
