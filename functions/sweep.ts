import { awsDeps } from '../core/adapters/aws/deps.js';
import { timedSweep } from '../core/metrics/sweepTiming.js';

const deps = awsDeps();

/** EventBridge Scheduler, `rate(1 minute)` -> one evaluator sweep (failed steps are logged and retried next minute), its duration kept for `/metrics`. */
export const handler = () => timedSweep(deps);
