import { createRoute } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import { createRouter, zodDetails } from '../http/router.js';
import { ErrorBody, HttpError, badRequest } from '../http/errors.js';
import { rateLimit } from '../http/rateLimit.js';
import { byClientIp, sessionAuth } from './middleware.js';
import { LogoutBody, PasswordChangeBody, StreamTicket, SignupBody, TokenBody, TokenResponse, UserResponse, WorkspaceResponse } from './schema.js';
import { changePassword } from './password.js';
import { issueStreamTicket } from './streamTickets.js';
import { jsonResponse } from '../http/openapi.js';
import { logout, passwordGrant, refreshGrant, signup, toWorkspace, type Grant } from './sessions.js';
import { clearSessionCookies, hasSessionCookie, refreshCookie, requireCsrf, requireSameOrigin, setSessionCookies } from './cookies.js';

/** Brute-force guard for credential endpoints, per client address. */
const credentialLimit = { name: 'credentials', limit: 20, windowSeconds: 60 };

/** `/auth/signup`, `/auth/logout`, `/oauth/token`: no session needed (logout needs one). */
export function authRoutes() {
  const router = createRouter();
  router.use('/auth/signup', rateLimit(credentialLimit, byClientIp));
  router.use('/oauth/token', rateLimit(credentialLimit, byClientIp));
  router.use('/auth/logout', sessionAuth());
  router.use('/streams/ticket', sessionAuth());
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
      200: {
        description:
          'A new access token and a rotated refresh token. With `refresh_cookie=true`, or on a refresh by cookie, the refresh token is not in the body: it is set as `vigil_refresh` (HttpOnly; Secure; SameSite=Strict; Path=/api/oauth/token), with a new `vigil_csrf` cookie (Secure; SameSite=Strict; Path=/)',
        content: { 'application/json': { schema: TokenResponse } },
      },
      401: { description: 'Bad credentials, or an unknown, expired, revoked or reused refresh token' },
      403: {
        description:
          'CSRF_MISMATCH: a refresh by cookie without the `X-Vigil-CSRF` header equal to the `vigil_csrf` cookie (nothing rotated), or a cookie request a browser marks as coming from another site (`Sec-Fetch-Site`)',
        content: { 'application/json': { schema: ErrorBody } },
      },
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
    let byCookie = body.refresh_cookie === true || body.refresh_cookie === 'true';
    if (byCookie) requireSameOrigin(c);
    let grant: Grant;
    if (body.grant_type === 'password') grant = await passwordGrant(deps, body.username, body.password);
    else if (body.refresh_token !== undefined) grant = await refreshGrant(deps, body.refresh_token);
    else {
      const cookie = refreshCookie(c);
      if (cookie === undefined) throw badRequest('Invalid token request', [{ path: 'refresh_token', message: 'Required (or the vigil_refresh cookie)' }]);
      requireCsrf(c);
      requireSameOrigin(c);
      byCookie = true;
      grant = await refreshGrant(deps, cookie);
    }
    c.header('Cache-Control', 'no-store');
    if (!byCookie) return c.json(grant.tokens, 200);
    const { refresh_token: refresh, ...tokens } = grant.tokens;
    setSessionCookies(c, refresh, grant.refreshExpiresAt - Math.floor(deps.clock.now().getTime() / 1000));
    return c.json(tokens, 200);
  });

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/logout',
      tags: ['auth'],
      security: [{ session: [] }],
      request: { body: { required: false, content: { 'application/json': { schema: LogoutBody } } } },
      responses: {
        204: {
          description:
            "Session revoked. A browser signed in by cookie (it sends `vigil_refresh` or `vigil_csrf`) ends its own session (the access token's) and the cookie's, and both cookies are cleared",
        },
      },
    }),
    async (c) => {
      const body = c.req.valid('json') ?? {};
      const cookie = refreshCookie(c);
      const byCookie = hasSessionCookie(c);
      await logout(requestCtx(c), {
        refreshTokens: [body.refresh_token, cookie].filter((token): token is string => token !== undefined),
        current: byCookie,
        everywhere: body.everywhere ?? false,
      });
      if (byCookie) clearSessionCookies(c);
      return c.body(null, 204);
    },
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/streams/ticket',
      tags: ['auth'],
      security: [{ session: [] }],
      description:
        'A single-use ticket for the WebSocket stream, valid 30 s: connect with `?stream=signals&ticket=<ticket>` instead of putting the access token in the URL. It stands for this session: a logout or password change before the connect voids it. Messages are `{event, data}` with the events of `GET /signals/sse`: `signal`, `check` and `incident`.',
      responses: { 201: jsonResponse(StreamTicket, 'The ticket and its lifetime in seconds') },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store');
      return c.json(await issueStreamTicket(requestCtx(c)), 201);
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
