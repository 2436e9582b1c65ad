import { z } from 'zod';

/**
 * An instant in a queue message: any date-time `Date.parse` reads, normalised to UTC ISO 8601 so
 * that messages compare as strings with what the store holds. (Request bodies use the stricter
 * `z.iso.datetime` of their area's schema: a client must send a real ISO date-time.)
 */
export const instant = z
  .string()
  .refine((value) => !Number.isNaN(Date.parse(value)), 'not a date-time')
  .transform((value) => new Date(value).toISOString());
