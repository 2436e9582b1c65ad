/*
 * Bounds and defaults of the configuration that the ping Lambda reads without zod
 * (core/adapters/aws/pingDeps.ts); config.ts validates the whole environment with these same values.
 */
export const HOME_REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-1'] as const;
export type HomeRegion = (typeof HOME_REGIONS)[number];
export const DEFAULT_HOME_REGION: HomeRegion = 'us-east-1';
export const TABLE_NAME_PATTERN = /^[A-Za-z0-9_.-]{3,255}$/;
export const DEFAULT_TABLE_NAME = 'vigil';
