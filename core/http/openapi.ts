import type { z } from '@hono/zod-openapi';

/** Shorthands for route definitions, so each route reads as method, path, input, output. */
export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});

export const sessionSecurity = [{ session: [] }];
export const apiKeySecurity = [{ apiKey: [] }];
