import { OpenAPIHono } from '@hono/zod-openapi';
import type { ZodError } from 'zod';
import type { AppEnv } from './env.js';
import { badRequest, type ErrorDetail, type HttpError } from './errors.js';
import { documentErrorResponses } from './openapi.js';

export function zodDetails(error: ZodError): ErrorDetail[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
  }));
}

/** The one 400 of a zod failure: the routers' hook, and a batch item validated on its own (checks/v1.ts). */
export function validationError(error: ZodError): HttpError {
  const details = zodDetails(error);
  const first = details[0];
  return badRequest(first ? `Validation failed: ${first.path}: ${first.message}` : 'Validation failed', details);
}

/**
 * Every router validates through zod and turns a failure into one 400 with field details, and
 * documents the standard error responses of each of its routes.
 */
export function createRouter(): OpenAPIHono<AppEnv> {
  const router = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error);
    },
  });
  documentErrorResponses(router.openAPIRegistry);
  return router;
}
