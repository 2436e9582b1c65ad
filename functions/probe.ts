import { awsDeps } from '../core/adapters/aws/deps.js';
import { handleProbeEvent } from '../core/probes/scheduled.js';

const deps = awsDeps();

/** EventBridge Scheduler (one schedule per outbound check and region) -> one probe run from this region. */
export const handler = (event: unknown) => handleProbeEvent(deps, event);
