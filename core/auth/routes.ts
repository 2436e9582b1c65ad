import { createRoute, z } from '@hono/zod-openapi';
import { createRouter, zodDetails } from '../http/router.js';
import { badRequest } from '../http/errors.js';
import { rateLimit } from '../http/rateLimit.js';
import { byClientIp, sessionAuth } from './middleware.js';
import { LogoutBody, SignupBody, TokenBody, TokenResponse, UserResponse, WorkspaceResponse } from './schema.js';
import { logout, passwordGrant, publicUser, refreshGrant, requireUser, signup } from './sessions.js';
import { toWorkspaceResponse } from './workspaceView.js';

/** Brute-force guard for credential endpoints, per client address. */
const credentialLimit = { name: 'credentials', limit: 20, windowSeconds: 60 };

/** `/auth/signup`, `/auth/logout`, `/oauth/token`: no session needed (logout needs one). */
export function authRoutes() {
  const router = createRouter();
  router.use('/auth/signup', rateLimit(credentialLimit, byClientIp));
  router.use('/oauth/token', rateLimit(credentialLimit, byClientIp));
  router.use('/auth/logout', sessionAuth());

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
      return c.json({ ...result, workspace: toWorkspaceResponse(result.workspace) }, 201);
    },
  );

  // RFC 6749 allows a form body; JSON is accepted too. Parsed by hand so both share one schema.
  router.post('/oauth/token', async (c) => {
    const type = c.req.header('content-type') ?? '';
    let raw: unknown;
    if (type.includes('application/x-www-form-urlencoded') || type.includes('multipart/form-data')) {
      raw = Object.fromEntries(Object.entries(await c.req.parseBody()).filter(([, v]) => typeof v === 'string'));
    } else {
      raw = await c.req.json<unknown>().catch(() => {
        throw badRequest('Malformed JSON in request body');
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
      const actor = c.var.actor;
      const body = c.req.valid('json') ?? {};
      if (actor.kind === 'user') await logout(c.var.deps, actor.userId, body.refresh_token, body.everywhere ?? false);
      return c.body(null, 204);
    },
  );
  return router;
}

/** `GET /me`: the user with their workspaces and roles. */
export function meRoutes() {
  const router = createRouter();
  router.use('*', sessionAuth());
  router.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['auth'],
      security: [{ session: [] }],
      responses: {
        200: {
          description: 'The signed-in user',
          content: {
            'application/json': {
              schema: UserResponse.extend({
                workspaces: z.array(WorkspaceResponse.extend({ role: z.enum(['OWNER', 'ADMIN', 'MEMBER', 'VIEWER']) })),
              }),
            },
          },
        },
      },
    }),
    async (c) => {
      const deps = c.var.deps;
      const actor = c.var.actor;
      if (actor.kind !== 'user') throw badRequest('Session required');
      const user = requireUser((await deps.store.entities.user.get({ userId: actor.userId }).go()).data);
      const memberships = (await deps.store.entities.membership.query.byUser({ userId: actor.userId }).go({ pages: 'all' })).data;
      const workspaces = memberships.length
        ? (await deps.store.entities.workspace.get(memberships.map((m) => ({ workspaceId: m.workspaceId }))).go()).data
        : [];
      const roleOf = new Map(memberships.map((m) => [m.workspaceId, m.role]));
      return c.json(
        {
          ...publicUser(user),
          workspaces: workspaces
            .sort((a, b) => a.workspaceId - b.workspaceId)
            .map((w) => ({ ...toWorkspaceResponse(w), role: roleOf.get(w.workspaceId) ?? 'VIEWER' })),
        },
        200,
      );
    },
  );
  return router;
}
