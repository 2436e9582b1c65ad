import { createRoute, z } from '@hono/zod-openapi';
import { sessionAuth } from '../auth/middleware.js';
import { requestCtx } from '../context.js';
import { jsonBody as body, jsonResponse as json, sessionSecurity as security } from '../http/openapi.js';
import { pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { IdParam } from '../identity/schema.js';
import { createPolicy, deletePolicy, getPolicy, listPolicies, updatePolicy } from './policies.js';
import { createRule, deleteRule, getRule, listRules, updateRule } from './rules.js';
import {
  Policy,
  PolicyCreate,
  PolicyUpdate,
  ProjectListQuery,
  Rule,
  RuleCreate,
  RuleDetail,
  RuleUpdate,
  SimulateDraft,
  SimulateQuery,
  Target,
  WorkspaceListQuery,
} from './schema.js';
import { simulateDraft, simulatePolicy } from './simulate.js';

const tags = ['escalation'];
const deleted = { 204: { description: 'Deleted' } };

const Person = z.object({ id: z.number().int(), email: z.string(), name: z.string().nullable() });
const SimulatedTarget = z.intersection(
  Target,
  z.object({
    alertChannel: z.object({ id: z.number().int(), name: z.string(), type: z.string(), enabled: z.boolean() }).nullable(),
    users: z.array(Person).describe('Who is e-mailed: the user, the team members, or whoever is on call when the step fires'),
    note: z.string().nullable().describe('Why a target reaches nobody'),
  }),
);
const Simulation = z
  .object({
    policyId: z.number().int().nullable().describe('null for a draft'),
    openedAt: z.string(),
    projectId: z.number().int().nullable(),
    routing: z
      .object({ kind: z.enum(['policy', 'rules', 'channels']), policyId: z.number().int().nullable() })
      .nullable()
      .describe('With projectId: what routing would really apply to an incident of that project'),
    enabled: z.boolean(),
    cycleMinutes: z.number().int().describe('L: the length of one repeat cycle'),
    steps: z.array(z.object({ cycle: z.number().int(), position: z.number().int(), minutesAfterOpen: z.number().int(), at: z.string(), targets: z.array(SimulatedTarget) })),
  })
  .openapi('EscalationSimulation');

function policyRouter() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags,
      security,
      request: { query: WorkspaceListQuery },
      responses: { 200: json(pageSchema(Policy, 'EscalationPolicyPage'), 'Policies of the workspace, in priority order') },
    }),
    async (c) => c.json(await listPolicies(requestCtx(c), c.req.valid('query')), 200),
  );
  r.openapi(createRoute({ method: 'post', path: '/', tags, security, request: { body: body(PolicyCreate) }, responses: { 201: json(Policy, 'Created') } }), async (c) =>
    c.json(await createPolicy(requestCtx(c), c.req.valid('json')), 201),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/simulate',
      operationId: 'simulateEscalationPolicyDraft',
      summary: 'Simulate unsaved escalation steps (nothing is stored)',
      tags,
      security,
      request: { body: body(SimulateDraft) },
      responses: { 200: json(Simulation, 'Who would be told and when, for an incident opened at `at` (default now)') },
    }),
    async (c) => c.json(await simulateDraft(requestCtx(c), c.req.valid('json')), 200),
  );
  r.openapi(
    createRoute({ method: 'get', path: '/{id}', tags, security, request: { params: IdParam }, responses: { 200: json(Policy, 'The policy with steps and targets') } }),
    async (c) => c.json(await getPolicy(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'put',
      path: '/{id}',
      tags,
      security,
      request: { params: IdParam, body: body(PolicyUpdate) },
      responses: { 200: json(Policy, 'Updated; a supplied steps array replaces all steps') },
    }),
    async (c) => c.json(await updatePolicy(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  r.openapi(createRoute({ method: 'delete', path: '/{id}', tags, security, request: { params: IdParam }, responses: deleted }), async (c) => {
    await deletePolicy(requestCtx(c), c.req.valid('param').id);
    return c.body(null, 204);
  });
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/simulate',
      tags,
      security,
      request: { params: IdParam, query: SimulateQuery },
      responses: { 200: json(Simulation, 'Who would be told and when, for an incident opened at `at`') },
    }),
    async (c) => c.json(await simulatePolicy(requestCtx(c), c.req.valid('param').id, c.req.valid('query')), 200),
  );
  return r;
}

function ruleRouter() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags,
      security,
      request: { query: ProjectListQuery },
      responses: { 200: json(pageSchema(Rule, 'EscalationRulePage'), 'Rules of the project, ordered by delay') },
    }),
    async (c) => c.json(await listRules(requestCtx(c), c.req.valid('query')), 200),
  );
  r.openapi(createRoute({ method: 'post', path: '/', tags, security, request: { body: body(RuleCreate) }, responses: { 201: json(Rule, 'Created') } }), async (c) =>
    c.json(await createRule(requestCtx(c), c.req.valid('json')), 201),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
      tags,
      security,
      request: { params: IdParam },
      responses: { 200: json(RuleDetail, 'The rule with its full alert channel, secrets masked') },
    }),
    async (c) => c.json(await getRule(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({ method: 'put', path: '/{id}', tags, security, request: { params: IdParam, body: body(RuleUpdate) }, responses: { 200: json(Rule, 'Updated') } }),
    async (c) => c.json(await updateRule(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  r.openapi(createRoute({ method: 'delete', path: '/{id}', tags, security, request: { params: IdParam }, responses: deleted }), async (c) => {
    await deleteRule(requestCtx(c), c.req.valid('param').id);
    return c.body(null, 204);
  });
  return r;
}

/** Escalation policies and legacy rules of the dashboard surface, each at its own prefix. */
export function escalationRoutes() {
  const r = createRouter();
  r.route('/escalation-policies', policyRouter());
  r.route('/escalation-rules', ruleRouter());
  return r;
}
