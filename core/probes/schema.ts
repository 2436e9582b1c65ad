import { z } from '@hono/zod-openapi';
import { OutboundConfigView, PROBE_REGIONS } from '../checks/outboundSchema.js';
import { MAX_LIMIT, pageSchema } from '../http/pagination.js';
import { PROBE_FAILURE_REASONS } from '../outbound/probe.js';
import { CHECK_STATUSES } from '../store/entities/check.js';

/** The outbound read APIs: config and probe state, runs, stats and timelines. */

export const ProbeRun = z
  .object({
    id: z.string().openapi({ description: 'ULID of the run' }),
    checkId: z.number().int(),
    region: z.enum(PROBE_REGIONS),
    startedAt: z.string(),
    ok: z.boolean(),
    statusCode: z.number().int().nullable().openapi({ description: 'HTTP status of the last response; null when none arrived' }),
    latencyMs: z.number().int(),
    failureReason: z.enum(PROBE_FAILURE_REASONS).nullable(),
    sslExpiresAt: z.string().nullable().openapi({ description: 'Expiry of the certificate of an https target that answered' }),
  })
  .openapi('ProbeRun');
export type ProbeRun = z.infer<typeof ProbeRun>;

export const ProbeRunPage = pageSchema(ProbeRun, 'ProbeRunPage');

export const ProbeState = z
  .object({
    status: z.enum(CHECK_STATUSES),
    consecutiveFailures: z.number().int().openapi({ description: 'Failing rounds in a row (a majority of regions failed)' }),
    consecutiveSuccesses: z.number().int().openapi({ description: 'Rounds in a row in which every region succeeded' }),
    lastRoundAt: z.string().nullable().openapi({ description: 'Start of the last round folded into the status' }),
    regions: z.array(z.object({ region: z.enum(PROBE_REGIONS), lastRun: ProbeRun.nullable() })),
  })
  .openapi('ProbeState');
export type ProbeState = z.infer<typeof ProbeState>;

export const OutboundDetails = z.object({ checkId: z.number().int(), config: OutboundConfigView, state: ProbeState }).openapi('OutboundDetails');
export type OutboundDetails = z.infer<typeof OutboundDetails>;

const isoDate = z.iso.datetime({ offset: true }).openapi({ format: 'date-time' });

export const RunsQuery = z.object({
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(20),
  startDate: isoDate.optional(),
  endDate: isoDate.optional(),
});

/** `90m`, `24h`, `7d`: minutes, hours or days. */
const DURATION = /^([1-9][0-9]{0,5})(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export const MIN_WINDOW_MS = 5 * 60_000;
export const MAX_WINDOW_MS = 365 * 86_400_000;

export function durationMs(value: string): number | null {
  const match = DURATION.exec(value);
  if (!match) return null;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

const Window = z
  .string()
  .refine((value) => durationMs(value) !== null, 'must be a duration such as 90m, 24h or 30d')
  .refine((value) => {
    const ms = durationMs(value) ?? 0;
    return ms >= MIN_WINDOW_MS && ms <= MAX_WINDOW_MS;
  }, 'must be between 5m and 365d')
  .openapi({ description: 'How far back from now: 5m to 365d (for example 24h, 7d)', example: '24h' });

export const StatsQuery = z.object({ window: Window.default('24h') });

export const TIMELINE_BUCKET_MINUTES = [5, 15, 30, 60, 180, 360, 720, 1440] as const;
export const TimelineQuery = z.object({
  window: Window.default('24h'),
  bucketMinutes: z.coerce
    .number()
    .int()
    .refine((value) => (TIMELINE_BUCKET_MINUTES as readonly number[]).includes(value), `must be one of ${TIMELINE_BUCKET_MINUTES.join(', ')}`)
    .default(5)
    .openapi({ description: `Bucket size: ${TIMELINE_BUCKET_MINUTES.join(', ')} minutes` }),
});

const summaryFields = {
  runs: z.number().int(),
  failures: z.number().int(),
  uptimePercent: z.number().nullable().openapi({ description: 'Successful runs over all runs, in percent; null without runs' }),
  avgLatencyMs: z.number().int().nullable().openapi({ description: 'Over runs that got an HTTP response' }),
  p95LatencyMs: z.number().int().nullable().openapi({ description: 'Estimated from a latency histogram (within about 15%)' }),
};

export const OutboundStats = z.object({ checkId: z.number().int(), window: z.string(), from: z.string(), to: z.string(), ...summaryFields }).openapi('OutboundStats');
export type OutboundStats = z.infer<typeof OutboundStats>;

export const TimelineBucket = z
  .object({
    start: z.string(),
    ...summaryFields,
    status: z.enum(['NO_DATA', 'UP', 'DEGRADED', 'DOWN']).openapi({ description: 'UP: no failed run; DOWN: every run failed' }),
  })
  .openapi('OutboundTimelineBucket');
export type TimelineBucket = z.infer<typeof TimelineBucket>;

export const OutboundTimeline = z
  .object({
    checkId: z.number().int(),
    window: z.string(),
    bucketMinutes: z.number().int(),
    from: z.string(),
    to: z.string(),
    buckets: z.array(TimelineBucket),
  })
  .openapi('OutboundTimeline');
export type OutboundTimeline = z.infer<typeof OutboundTimeline>;
