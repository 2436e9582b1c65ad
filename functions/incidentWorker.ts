import { awsDeps } from '../core/adapters/aws/deps.js';
import { sqsHandler } from '../core/adapters/aws/sqsHandler.js';
import { handleIncidentMessages } from '../core/incidents/worker.js';

const deps = awsDeps();

/**
 * SQS `incidents` queue -> incident processing, with partial batch failures. The alerts its
 * incidents owe are published for the alerts Lambda, never sent from here: this one has neither
 * the senders' permissions and secrets nor a timeout for webhooks (core/runtime.ts, `handOffAlerts`).
 */
export const handler = sqsHandler((messages) => handleIncidentMessages(deps, messages));
