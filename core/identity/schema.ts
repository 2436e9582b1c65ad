import { z } from '@hono/zod-openapi';

export const IdParam = z.object({ id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
export const WorkspaceQuery = z.object({ workspaceId: z.coerce.number().int().min(1).optional() });

export const ProjectCreate = z
  .strictObject({
    name: z.string().trim().min(1).max(255),
    description: z.string().max(255).nullable().optional(),
    workspaceId: z.number().int().min(1).optional(),
  })
  .openapi('ProjectCreate');

/** Integration API create body: the workspace comes from the key. */
export const ProjectCreateV1 = ProjectCreate.omit({ workspaceId: true }).openapi('ProjectCreateV1');

export const ProjectUpdate = z
  .strictObject({ name: z.string().trim().min(1).max(255).optional(), description: z.string().max(255).nullable().optional() })
  .openapi('ProjectUpdate');

export const Project = z
  .object({
    id: z.number().int(),
    workspaceId: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Project');

export const ApiKeyCreate = z
  .strictObject({
    workspaceId: z.number().int().min(1).optional(),
    name: z.string().trim().min(1).max(255),
    permission: z.enum(['read_only', 'read_write']).default('read_write'),
    kind: z.enum(['service', 'ping']).default('service'),
  })
  .openapi('ApiKeyCreate');

export const ApiKeyUpdate = z.strictObject({ enabled: z.boolean().optional(), name: z.string().trim().min(1).max(255).optional() }).openapi('ApiKeyUpdate');

export const ApiKey = z
  .object({
    id: z.number().int(),
    workspaceId: z.number().int(),
    name: z.string(),
    permission: z.enum(['read_only', 'read_write']),
    kind: z.enum(['service', 'ping']),
    enabled: z.boolean(),
    displayPrefix: z.string(),
    lastFour: z.string(),
    lastUsedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('ApiKey');

export const ApiKeyCreated = ApiKey.extend({ key: z.string().describe('Shown once; store it now.') }).openapi('ApiKeyCreated');

export const ProjectPingKey = z
  .object({
    projectId: z.number().int(),
    pingKey: z.string().describe('Shown once; store it now. Slug pings: `{signal_base_url}/ping/<pingKey>/<slug>` (Healthchecks-compatible).'),
    createdAt: z.string(),
  })
  .openapi('ProjectPingKey');

export const RoleSchema = z.enum(['OWNER', 'ADMIN', 'MEMBER', 'VIEWER']).openapi('Role');

export const PlanLimits = z
  .object({
    checks: z.number().int(),
    outboundChecks: z.number().int(),
    intervalFloorSeconds: z.number().int(),
    outboundIntervalFloorSeconds: z.number().int(),
    canMute: z.boolean(),
    statusPageSubscribers: z.number().int().describe('Subscribers of one status page, pending ones included'),
  })
  .openapi('PlanLimits');

export const WorkspaceDetail = z
  .object({
    id: z.number().int(),
    name: z.string(),
    plan: z.enum(['FREE', 'TEAM', 'BUSINESS']),
    limits: PlanLimits,
    role: RoleSchema.describe("The caller's role in this workspace"),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('WorkspaceDetail');

const WorkspaceName = z.string().trim().min(1).max(255);

export const WorkspaceCreate = z.strictObject({ name: WorkspaceName }).openapi('WorkspaceCreate');

/** `plan` is deliberately absent: clients may not set it, so it is an unknown field (400). */
export const WorkspaceUpdate = z.strictObject({ name: WorkspaceName.optional() }).openapi('WorkspaceUpdate');

export const MemberParams = z.object({
  id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  userId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
});

export const Member = z
  .object({
    userId: z.number().int(),
    email: z.string(),
    name: z.string().nullable(),
    role: RoleSchema,
    createdAt: z.string(),
  })
  .openapi('Member');

export const MemberCreate = z.strictObject({ email: z.email().max(254), role: RoleSchema }).openapi('MemberCreate');
export const MemberUpdate = z.strictObject({ role: RoleSchema }).openapi('MemberUpdate');
