import { awsCoreDeps } from '../core/adapters/aws/coreDeps.js';
import { streamsHandler } from '../core/streams/aws.js';

/** API Gateway WebSocket API (`$connect`, `$disconnect`, `$default`) -> the stream connect logic. */
export const handler = streamsHandler(awsCoreDeps());
