import { z } from '@hono/zod-openapi';
import { pageQuery } from '../http/pagination.js';

const bodyId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const queryId = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const name = z.string().trim().min(1).max(255);
const description = z.string().max(2000);

/** Default page size of the team, schedule, policy and rule lists (the spec names none for them). */
export const DEFAULT_LIST_LIMIT = 20;

export const WorkspaceListQuery = z.object({ workspaceId: queryId }).extend(pageQuery(DEFAULT_LIST_LIMIT).shape);
/** The Integration API's: `workspaceId` defaults to the key's own. */
export const WorkspaceListQueryV1 = WorkspaceListQuery.partial({ workspaceId: true });

export const TeamCreate = z.strictObject({ workspaceId: bodyId, name, description: description.nullable().optional() }).openapi('TeamCreate');
export type TeamCreate = z.infer<typeof TeamCreate>;

export const TeamUpdate = z.strictObject({ name: name.optional(), description: description.nullable().optional() }).openapi('TeamUpdate');
export type TeamUpdate = z.infer<typeof TeamUpdate>;

export const TeamMemberCreate = z.strictObject({ teamId: bodyId, userId: bodyId }).openapi('TeamMemberCreate');
export type TeamMemberCreate = z.infer<typeof TeamMemberCreate>;

export const TeamMember = z
  .object({ id: z.number().int(), teamId: z.number().int(), userId: z.number().int(), email: z.string(), name: z.string().nullable(), createdAt: z.string() })
  .openapi('TeamMember');
export type TeamMember = z.infer<typeof TeamMember>;

export const Team = z
  .object({
    id: z.number().int(),
    workspaceId: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    members: z.array(TeamMember.omit({ teamId: true, createdAt: true })),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Team');
export type Team = z.infer<typeof Team>;
