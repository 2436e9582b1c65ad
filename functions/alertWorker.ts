import { awsDeps } from '../core/adapters/aws/deps.js';
import { sqsHandler } from '../core/adapters/aws/sqsHandler.js';
import { handleAlertMessages } from '../core/escalation/dispatch.js';

const deps = awsDeps();

/** SQS `alerts` queue -> alert channel deliveries, with partial batch failures. */
export const handler = sqsHandler((messages) => handleAlertMessages(deps, messages));
