import { z } from '@hono/zod-openapi';
import { MAX_LIMIT } from '../http/pagination.js';
import { SIGNAL_TYPES } from '../store/entities/signal.js';

export { MAX_REPORTED_DEPENDENCIES, SIGNAL_TTL_DAYS } from './limits.js';

export const PingAck = z.object({ message: z.literal('OK') }).openapi('PingAck');

export const TokenParam = z.object({ token: z.string().openapi({ description: 'The check token from its ping URL' }) });
export const SlugParam = z.object({ slug: z.string() });
export const ExitCodeParam = TokenParam.extend({ exitCode: z.string().openapi({ description: 'The exit code, 0-255', example: '3' }) });
export const SlugExitCodeParam = SlugParam.extend({ exitCode: z.string().openapi({ description: 'The exit code, 0-255', example: '3' }) });
export const DeprecatedSlugExitCodeParam = z.object({ pingKey: z.string(), slug: z.string(), exitCode: z.string() });
/** Left as a string here: the handler answers a malformed rid with the spec's 400 (zod at the edge would too, but after the suffix's 404). */
export const RunQuery = z.object({ rid: z.string().optional().openapi({ description: 'Run id (UUID): pairs /start with its end so concurrent runs each get their duration' }) });
export const DeprecatedSlugParam = z.object({ pingKey: z.string(), slug: z.string() });

export const SlugPingQuery = z.object({
  rid: z.string().optional().openapi({ description: 'Run id (UUID): pairs /start with its end' }),
  create: z.enum(['0', '1', 'true', 'false']).optional().openapi({ description: '`1` creates the job on its first ping' }),
  project: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().openapi({
    description: 'Project of a job created by `create=1`; default: the workspace’s first project',
  }),
});

const isoDate = z.iso.datetime({ offset: true }).openapi({ format: 'date-time' });

/**
 * DynamoDB has no offset: page N reads the N * limit newest signals. Past this depth the caller
 * narrows the range with startDate/endDate instead (each range starts again at page 1).
 */
export const MAX_HISTORY_DEPTH = 1_000;

export const SignalHistoryQuery = z
  .object({
    page: z.coerce.number().int().min(1).max(10_000).default(1),
    limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(20),
    startDate: isoDate.optional(),
    endDate: isoDate.optional(),
  })
  .refine((query) => query.page * query.limit <= MAX_HISTORY_DEPTH, {
    path: ['page'],
    message: `page x limit may reach at most the ${MAX_HISTORY_DEPTH} newest signals of a range: narrow it with startDate/endDate`,
  });

export const StreamQuery = z.object({ token: z.string().min(1).max(128).optional() });

export const Signal = z
  .object({
    id: z.string().openapi({ description: 'ULID' }),
    checkId: z.number().int(),
    type: z.enum(SIGNAL_TYPES),
    source: z.string().openapi({ description: 'PING, SYSTEM, DEPLOYMENT or API' }),
    receivedAt: z.string(),
    sourceIp: z.string().nullable(),
    userAgent: z.string().nullable(),
    method: z.string().nullable(),
    payload: z.unknown().openapi({ description: 'The JSON body as JSON, any other body as text; null without a body' }),
    durationMs: z.number().int().nullable(),
    details: z.record(z.string(), z.unknown()).nullable(),
  })
  .openapi('Signal');
export type Signal = z.infer<typeof Signal>;

/** What a ping payload may report: core/signals/limits.ts (parseReportedDependencies, plain code on the ping path). */
