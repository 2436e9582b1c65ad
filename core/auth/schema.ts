import { z } from '@hono/zod-openapi';

export const Email = z.email().max(254);
export const Password = z.string().min(8).max(200);

export const SignupBody = z
  .strictObject({
    email: Email,
    password: Password,
    name: z.string().trim().min(1).max(255).optional(),
    workspaceName: z.string().trim().min(1).max(255).optional(),
  })
  .openapi('SignupBody');

export const TokenBody = z.discriminatedUnion('grant_type', [
  z.object({ grant_type: z.literal('password'), username: Email, password: z.string().min(1).max(200) }),
  z.object({ grant_type: z.literal('refresh_token'), refresh_token: z.string().min(1).max(512) }),
]);

export const LogoutBody = z
  .strictObject({ refresh_token: z.string().min(1).max(512).optional(), everywhere: z.boolean().optional() })
  .openapi('LogoutBody');

export const UserResponse = z
  .object({ id: z.number().int(), email: z.string(), name: z.string().nullable(), createdAt: z.string() })
  .openapi('User');

export const TokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    refresh_token: z.string(),
  })
  .openapi('TokenResponse');

export const WorkspaceResponse = z
  .object({
    id: z.number().int(),
    name: z.string(),
    plan: z.enum(['FREE', 'TEAM', 'BUSINESS']),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Workspace');

export const PasswordChangeBody = z
  .strictObject({ currentPassword: z.string().min(1).max(200), newPassword: Password })
  .openapi('PasswordChangeBody');
