import { OpenAPIHono } from '@hono/zod-openapi';
import type { ZodError } from 'zod';
import type { AppEnv } from './env.js';
import { badRequest, type ErrorDetail } from './errors.js';
import { documentErrorResponses } from './openapi.js';

export function zodDetails(error: ZodError): ErrorDetail[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
  }));
}

/**
 * Every router validates through zod and turns a failure into one 400 with field details, and
 * documents the standard error responses of each of its routes.
 */
export function createRouter(): OpenAPIHono<AppEnv> {
  const router = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const details = zodDetails(result.error);
        const first = details[0];
        throw badRequest(first ? `Validation failed: ${first.path}: ${first.message}` : 'Validation failed', details);
      }
    },
  });
  documentErrorResponses(router.openAPIRegistry);
  return router;
}
