import type { z } from 'zod';
import { badRequest } from '../../http/errors.js';
import { zodDetails } from '../../http/router.js';

/** The payload as `schema` reads it, or the one 400 of a bad payload with every field's failure. */
export function parsePayload<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const details = zodDetails(parsed.error);
  const first = details[0];
  throw badRequest(first ? `Invalid ${what}: ${first.path}: ${first.message}` : `Invalid ${what}`, details);
}
