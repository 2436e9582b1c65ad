import type { QueueName } from '../../ports/index.js';

/*
 * The names of the variables stacks/ sets, without the schema that reads them (env.ts): the ping
 * Lambda reads its few variables by these names and must not load zod.
 */

/** `eu-west-1` -> `EU_WEST_1`: how a region appears in an environment variable name. */
export const regionEnvSuffix = (region: string): string => region.toUpperCase().replace(/-/g, '_');

/** The variable `stacks/` sets to a queue's URL, e.g. VIGIL_QUEUE_URL_INCIDENTS. */
export const queueUrlVariable = (queue: QueueName): string => `VIGIL_QUEUE_URL_${queue.toUpperCase()}`;

/** The variable `stacks/` sets to a region's probe Lambda ARN, e.g. VIGIL_PROBE_FUNCTION_ARN_EU_WEST_1. */
export const probeFunctionVariable = (region: string): string => `VIGIL_PROBE_FUNCTION_ARN_${regionEnvSuffix(region)}`;
