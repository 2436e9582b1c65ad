import { awsDeps } from '../core/adapters/aws/deps.js';
import { handleProbeEvent } from '../core/probes/scheduled.js';

const deps = awsDeps();

/**
 * EventBridge Scheduler (one schedule per outbound check and region) -> one probe run from this
 * region. The loopback switch is for local testing only and is never on in AWS, whatever the env says.
 */
export const handler = (event: unknown) => handleProbeEvent(deps, event, { allowLoopback: false });
