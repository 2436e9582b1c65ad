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

export const ApiKeyUpdate = z
  .strictObject({ enabled: z.boolean().optional(), name: z.string().trim().min(1).max(255).optional() })
  .openapi('ApiKeyUpdate');

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
