import { z } from '@hono/zod-openapi';
import type { ErrorBody as ErrorBodyShape, ErrorDetail as ErrorDetailShape } from './httpError.js';

export * from './httpError.js';

/** The spec's error detail and body as OpenAPI schemas (the shapes themselves: httpError.ts). */
export const ErrorDetail = z.object({ path: z.string(), message: z.string() }).openapi('ErrorDetail') satisfies z.ZodType<ErrorDetailShape>;

/** The spec's error body, the one shape of every 4xx and 5xx (and in both OpenAPI documents). */
export const ErrorBody = z
  .object({
    statusCode: z.number().int(),
    message: z.string(),
    error: z.string().describe('The status name, e.g. "Not Found"'),
    code: z.string().optional().describe('Machine-readable code, e.g. CHECK_NOT_FOUND'),
    details: z.array(ErrorDetail).optional().describe('Field-level validation failures'),
  })
  .openapi('ErrorBody') satisfies z.ZodType<ErrorBodyShape>;
export type ErrorBody = ErrorBodyShape;
export type ErrorDetail = ErrorDetailShape;
