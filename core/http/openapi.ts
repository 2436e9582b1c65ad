import type { OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from './env.js';
import { ErrorBody } from './errors.js';
import { nameOperations } from './operationNames.js';

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

/** The failures any route may answer with (validation, auth, scope, lookup, races, size, limits). */
export const STANDARD_ERROR_RESPONSES = {
  400: 'Invalid input (code VALIDATION_ERROR, BAD_REQUEST or MALFORMED_JSON; field details in `details`)',
  401: 'Missing, invalid or expired credential',
  403: 'The credential may not do this (role, key permission or plan limit)',
  404: "Not found, or not in the caller's workspace",
  409: 'Conflicts with the current state (a taken slug, a resolved incident, a lost race)',
  413: 'Request body too large',
  429: 'Rate limited; see Retry-After and the RateLimit-* headers',
} as const;

type Registry = OpenAPIHono['openAPIRegistry'];
type RegisteredRoute = Parameters<Registry['registerPath']>[0];
type RouteResponse = RegisteredRoute['responses'][string];

const errorContent = { 'application/json': { schema: ErrorBody } };

/**
 * The route with every standard error documented as an `ErrorBody`. A route's own description of
 * a status wins; it gets the ErrorBody content if it had none.
 */
export function withErrorResponses(route: RegisteredRoute): RegisteredRoute {
  const responses: Record<string, RouteResponse> = { ...route.responses };
  for (const [status, description] of Object.entries(STANDARD_ERROR_RESPONSES)) {
    const own = responses[status];
    if (own && '$ref' in own) continue;
    responses[status] = { description, ...own, content: own?.content ?? errorContent };
  }
  return { ...route, responses };
}

/**
 * Documents the standard errors on every route this registry records. Wrapping the registry (not
 * each `createRoute`) puts them in both documents for every router made by `createRouter`,
 * including the copies a parent takes when it mounts a child router.
 */
export function documentErrorResponses(registry: Registry): void {
  const registerPath = registry.registerPath.bind(registry);
  registry.registerPath = (route) => registerPath(withErrorResponses(route));
}

/** The license both documents name (`info.license`); generators copy it into the SDKs they write. */
export const DOCUMENT_LICENSE = { name: 'MIT', url: 'https://opensource.org/license/mit' };

type DocumentConfig = Parameters<OpenAPIHono['getOpenAPI31Document']>[0];

/**
 * Serves the router's OpenAPI 3.1 document at `path` (instead of `doc31`), with every operation
 * named (`operationNames.ts`). Built on the first request, once every route is registered.
 */
export function serveOpenApi(router: OpenAPIHono<AppEnv>, path: string, config: DocumentConfig): void {
  let document: ReturnType<OpenAPIHono['getOpenAPI31Document']> | undefined;
  router.get(path, (c) => {
    document ??= nameOperations(router.getOpenAPI31Document(config));
    return c.json(document);
  });
}
