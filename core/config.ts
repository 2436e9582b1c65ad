import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { DEFAULT_HOME_REGION, DEFAULT_TABLE_NAME, HOME_REGIONS, TABLE_NAME_PATTERN, type HomeRegion } from './configValues.js';
import { PLANS } from './store/entities/workspace.js';

const flag = z
  .enum(['1', '0', 'true', 'false', 'on', 'off', 'yes', 'no', ''])
  .optional()
  .transform((value) => value === '1' || value === 'true' || value === 'on' || value === 'yes');

/** Environment configuration, validated once at boot. Every variable is optional. */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000), // 0 picks a free port
  VIGIL_DATA_DIR: z.string().min(1).default('.data'),
  VIGIL_DYNAMODB_ENDPOINT: z.url().optional(),
  VIGIL_TABLE_NAME: z.string().regex(TABLE_NAME_PATTERN).default(DEFAULT_TABLE_NAME),
  VIGIL_KEY_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9]{1,15}$/, 'lower-case letters and digits, 2-16 chars')
    .default('vigil'),
  VIGIL_SWEEP_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  VIGIL_PROBE_ALLOW_PRIVATE: flag,
  // Origins Vigil accepts as SNS besides SNS's own https hosts (a local emulator, the test suite's
  // certificate server), http included: never set on AWS, where only SNS may sign or confirm.
  VIGIL_SNS_TRUSTED_ORIGINS: z.preprocess(
    (value) =>
      typeof value === 'string'
        ? value
            .split(',')
            .map((part) => part.trim())
            .filter((part) => part !== '')
        : [],
    z.array(z.url({ protocol: /^https?$/ }).refine((url) => URL.canParse(url) && new URL(url).origin === url, 'an origin (scheme://host[:port]) without a path')),
  ),
  VIGIL_DEFAULT_PLAN: z.enum(PLANS).default('BUSINESS'),
  VIGIL_HOME_REGION: z.enum(HOME_REGIONS).default(DEFAULT_HOME_REGION),
  VIGIL_PUBLIC_URL: z.url().optional(),
  VIGIL_ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
  // A day covers a night on call; a week bounds how long a forwarded alert can still act.
  VIGIL_ACK_LINK_TTL_SECONDS: z.coerce.number().int().min(300).max(604_800).default(86_400),
  // Unset keeps `GET /metrics` off (404); a short token would be guessable by a scraper's neighbours.
  VIGIL_METRICS_TOKEN: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^[\x21-\x7e]{16,256}$/, '16-256 printable characters, no spaces')
      .optional(),
  ),
  VIGIL_CNAME_TARGET: z
    .string()
    .regex(/^[A-Za-z0-9.-]{1,253}$/)
    .optional(),
  VIGIL_PUBLIC_STATUS_RATE_LIMIT: z.coerce.number().int().min(1).max(10_000_000).default(30),
  // log2 of scrypt's N. Below 17 is for the test suite only (a sign-up costs ~0.3 s at 17).
  VIGIL_MAX_WORKSPACES_PER_USER: z.coerce.number().int().min(1).max(10_000).default(10),
  VIGIL_PASSWORD_HASH_LOG_N: z.coerce.number().int().min(10).max(20).default(17),
  // Half the cores, at least one: a flood of password attempts leaves the other half to the pings.
  VIGIL_PASSWORD_HASH_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(Math.max(1, Math.floor(availableParallelism() / 2))),
});

export type Config = {
  port: number;
  dataDir: string;
  dynamoEndpoint: string | undefined;
  tableName: string;
  keyPrefix: string;
  sweepSeconds: number;
  probeAllowPrivate: boolean;
  /** VIGIL_SNS_TRUSTED_ORIGINS: origins trusted as SNS besides SNS's own hosts (tests, emulators). */
  snsTrustedOrigins: readonly string[];
  defaultPlan: (typeof PLANS)[number];
  homeRegion: HomeRegion;
  /** The address clients use, ending before `/api` (ping URLs are built from it). */
  publicUrl: string;
  accessTokenTtlSeconds: number;
  /** How long the acknowledge/resolve links in an alert act (core/alerting/ackLinks.ts). */
  ackLinkTtlSeconds: number;
  /** Bearer token of the install's own `GET /metrics`; undefined keeps that route off. */
  metricsToken: string | undefined;
  /** Where a status page's custom domain must point (CNAME); default: the host of publicUrl. */
  cnameTarget: string | undefined;
  /** Public status data requests per page and client address per 60 s (spec: 30; the bench raises it). */
  publicStatusRateLimit: number;
  /** Workspaces one user may create, the sign-up one included. */
  maxWorkspacesPerUser: number;
  /** scrypt cost: N = 2^passwordHashLogN (OWASP: at least 17). */
  passwordHashLogN: number;
  /** scrypt runs in flight in one process at most (core/auth/hashSlots.ts); past it 429 at once. */
  passwordHashConcurrency: number;
};

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first?.path.join('.') ?? 'configuration';
    throw new ConfigError(`invalid configuration: ${where}: ${first?.message ?? 'invalid value'}`);
  }
  const value = parsed.data;
  return {
    port: value.PORT,
    dataDir: value.VIGIL_DATA_DIR,
    dynamoEndpoint: value.VIGIL_DYNAMODB_ENDPOINT,
    tableName: value.VIGIL_TABLE_NAME,
    keyPrefix: value.VIGIL_KEY_PREFIX,
    sweepSeconds: value.VIGIL_SWEEP_SECONDS,
    probeAllowPrivate: value.VIGIL_PROBE_ALLOW_PRIVATE,
    snsTrustedOrigins: value.VIGIL_SNS_TRUSTED_ORIGINS,
    defaultPlan: value.VIGIL_DEFAULT_PLAN,
    homeRegion: value.VIGIL_HOME_REGION,
    publicUrl: (value.VIGIL_PUBLIC_URL ?? `http://localhost:${value.PORT}`).replace(/\/+$/, ''),
    accessTokenTtlSeconds: value.VIGIL_ACCESS_TOKEN_TTL_SECONDS,
    ackLinkTtlSeconds: value.VIGIL_ACK_LINK_TTL_SECONDS,
    metricsToken: value.VIGIL_METRICS_TOKEN,
    cnameTarget: value.VIGIL_CNAME_TARGET,
    publicStatusRateLimit: value.VIGIL_PUBLIC_STATUS_RATE_LIMIT,
    passwordHashLogN: value.VIGIL_PASSWORD_HASH_LOG_N,
    passwordHashConcurrency: value.VIGIL_PASSWORD_HASH_CONCURRENCY,
    maxWorkspacesPerUser: value.VIGIL_MAX_WORKSPACES_PER_USER,
  };
}
