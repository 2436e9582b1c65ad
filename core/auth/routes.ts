import { createRoute } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import { createRouter, zodDetails } from '../http/router.js';
import { HttpError, badRequest } from '../http/errors.js';
import { rateLimit } from '../http/rateLimit.js';
import { byClientIp, sessionAuth } from './middleware.js';
import { LogoutBody, PasswordChangeBody, SignupBody, TokenBody, TokenResponse, UserResponse, WorkspaceResponse } from './schema.js';
import { changePassword } from './password.js';
import { logout, passwordGrant, refreshGrant, signup, toWorkspace } from './sessions.js';

/** Brute-force guard for credential endpoints, per client address. */
const credentialLimit = { name: 'credentials', limit: 20, windowSeconds: 60 };

/** `/auth/signup`, `/auth/logout`, `/oauth/token`: no session needed (logout needs one). */
export function authRoutes() {
  const router = createRouter();
  router.use('/auth/signup', rateLimit(credentialLimit, byClientIp));
  router.use('/oauth/token', rateLimit(credentialLimit, byClientIp));
  router.use('/auth/logout', sessionAuth());
  // The current password is a credential: guessed per address like the token endpoint.
  router.use('/auth/password', rateLimit(credentialLimit, byClientIp), sessionAuth());

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/signup',
      tags: ['auth'],
      request: { body: { required: true, content: { 'application/json': { schema: SignupBody } } } },
      responses: {
        201: {
          description: 'The new user, their first workspace and a session',
          content: {
            'application/json': {
              schema: TokenResponse.extend({ user: UserResponse, workspace: WorkspaceResponse }),
            },
          },
        },
      },
    }),
    async (c) => {
      const result = await signup(c.var.deps, c.req.valid('json'));
      return c.json({ ...result, workspace: toWorkspace(result.workspace) }, 201);
    },
  );

  // RFC 6749 allows a form body; JSON is accepted too. Parsed by hand so both share one schema,
  // and registered by hand so the OpenAPI document still shows it.
  const tokenRequest = TokenBody.openapi('TokenRequest');
  router.openAPIRegistry.registerPath({
    method: 'post',
    path: '/oauth/token',
    tags: ['auth'],
    description: 'OAuth 2.0 token endpoint: password and refresh_token grants. Unknown parameters are ignored (RFC 6749 3.2).',
    request: {
      body: {
        required: true,
        content: { 'application/x-www-form-urlencoded': { schema: tokenRequest }, 'application/json': { schema: tokenRequest } },
      },
    },
    responses: {
      200: { description: 'A new access token and a rotated refresh token', content: { 'application/json': { schema: TokenResponse } } },
      401: { description: 'Bad credentials, or an unknown, expired, revoked or reused refresh token' },
    },
  });
  router.post('/oauth/token', async (c) => {
    const type = c.req.header('content-type') ?? '';
    let raw: unknown;
    if (type.includes('application/x-www-form-urlencoded') || type.includes('multipart/form-data')) {
      // A body that does not parse as its declared form (no or wrong boundary, truncated parts) is
      // the client's fault; only the body limit's own error keeps its status.
      const form = await c.req.parseBody().catch((err: unknown) => {
        if (err instanceof HttpError || (typeof err === 'object' && err !== null && 'status' in err)) throw err;
        throw new HttpError('BAD_REQUEST', 'Malformed form body: it does not parse as its content-type says');
      });
      raw = Object.fromEntries(Object.entries(form).filter(([, v]) => typeof v === 'string'));
    } else {
      raw = await c.req.json<unknown>().catch(() => {
        throw new HttpError('MALFORMED_JSON', 'Malformed JSON in request body');
      });
    }
    const parsed = TokenBody.safeParse(raw);
    if (!parsed.success) throw badRequest('Invalid token request', zodDetails(parsed.error));
    const body = parsed.data;
    const deps = c.var.deps;
    const tokens =
      body.grant_type === 'password'
        ? await passwordGrant(deps, body.username, body.password)
        : await refreshGrant(deps, body.refresh_token);
    c.header('Cache-Control', 'no-store');
    return c.json(tokens, 200);
  });

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/logout',
      tags: ['auth'],
      security: [{ session: [] }],
      request: { body: { required: false, content: { 'application/json': { schema: LogoutBody } } } },
      responses: { 204: { description: 'Session revoked' } },
    }),
    async (c) => {
      const body = c.req.valid('json') ?? {};
      await logout(requestCtx(c), body.refresh_token, body.everywhere ?? false);
      return c.body(null, 204);
    },
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/password',
      tags: ['auth'],
      security: [{ session: [] }],
      request: { body: { required: true, content: { 'application/json': { schema: PasswordChangeBody } } } },
      responses: {
        200: {
          description: 'Password changed; every session is revoked and a fresh one is returned',
          content: { 'application/json': { schema: TokenResponse } },
        },
      },
    }),
    async (c) => {
      const tokens = await changePassword(requestCtx(c), c.req.valid('json'));
      c.header('Cache-Control', 'no-store');
      return c.json(tokens, 200);
    },
  );
  return router;
}
