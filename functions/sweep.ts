import { awsDeps } from '../core/adapters/aws/deps.js';
import { runSweep } from '../core/sweep/index.js';

const deps = awsDeps();

/** EventBridge Scheduler, `rate(1 minute)` -> one evaluator sweep (failed steps are logged and retried next minute). */
export const handler = () => runSweep(deps);
