import { createRoute } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import { apiKeySecurity as security, jsonBody as body, jsonResponse as json } from '../http/openapi.js';
import { pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { IdParam } from '../identity/schema.js';
import { resolveWorkspaceId } from '../identity/workspaceScope.js';
import { WorkspaceListQueryV1 } from '../oncall/teamSchema.js';
import { createPolicy, deletePolicy, getPolicy, listPolicies, updatePolicy } from './policies.js';
import { Policy, PolicyCreateV1, PolicyUpdate } from './schema.js';

const tags = ['v1', 'escalation'];

/** `/v1/escalation-policies`: the dashboard's verbs for a read_write key of the workspace. Mounted by v1Routes. */
export function v1EscalationRoutes() {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: 'get',
      path: '/escalation-policies',
      tags,
      security,
      request: { query: WorkspaceListQueryV1 },
      responses: { 200: json(pageSchema(Policy, 'EscalationPolicyPage'), 'Policies of the workspace, in priority order') },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const query = c.req.valid('query');
      return c.json(await listPolicies(ctx, { ...query, workspaceId: await resolveWorkspaceId(ctx, query.workspaceId) }), 200);
    },
  );
  r.openapi(
    createRoute({ method: 'post', path: '/escalation-policies', tags, security, request: { body: body(PolicyCreateV1) }, responses: { 201: json(Policy, 'Created') } }),
    async (c) => {
      const ctx = requestCtx(c);
      const input = c.req.valid('json');
      return c.json(await createPolicy(ctx, { ...input, workspaceId: await resolveWorkspaceId(ctx, input.workspaceId) }), 201);
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/escalation-policies/{id}',
      tags,
      security,
      request: { params: IdParam },
      responses: { 200: json(Policy, 'The policy with steps and targets') },
    }),
    async (c) => c.json(await getPolicy(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'put',
      path: '/escalation-policies/{id}',
      tags,
      security,
      request: { params: IdParam, body: body(PolicyUpdate) },
      responses: { 200: json(Policy, 'Updated; a supplied steps array replaces all steps') },
    }),
    async (c) => c.json(await updatePolicy(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  r.openapi(
    createRoute({ method: 'delete', path: '/escalation-policies/{id}', tags, security, request: { params: IdParam }, responses: { 204: { description: 'Deleted' } } }),
    async (c) => {
      await deletePolicy(requestCtx(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );
  return r;
}
