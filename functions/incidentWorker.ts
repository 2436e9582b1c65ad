import { awsDeps } from '../core/adapters/aws/deps.js';
import { sqsHandler } from '../core/adapters/aws/sqsHandler.js';
import { handleIncidentMessages } from '../core/incidents/worker.js';

const deps = awsDeps();

/** SQS `incidents` queue -> incident processing, with partial batch failures. */
export const handler = sqsHandler((messages) => handleIncidentMessages(deps, messages));
