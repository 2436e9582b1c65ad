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

/** A form body carries strings, JSON a boolean: both spell the dashboard's request for cookies. */
const RefreshCookie = z
  .union([z.boolean(), z.enum(['true', 'false'])])
  .optional()
  .describe('true: the refresh token is set as the HttpOnly `vigil_refresh` cookie (with a `vigil_csrf` cookie) and left out of the body');

export const TokenBody = z.discriminatedUnion('grant_type', [
  z.object({ grant_type: z.literal('password'), username: Email, password: z.string().min(1).max(200), refresh_cookie: RefreshCookie }),
  z.object({
    grant_type: z.literal('refresh_token'),
    refresh_token: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .describe('Required unless the `vigil_refresh` cookie is sent, which then needs the `X-Vigil-CSRF` header equal to the `vigil_csrf` cookie (else 403 CSRF_MISMATCH)'),
    refresh_cookie: RefreshCookie,
  }),
]);

export const LogoutBody = z.strictObject({ refresh_token: z.string().min(1).max(512).optional(), everywhere: z.boolean().optional() }).openapi('LogoutBody');

export const UserResponse = z.object({ id: z.number().int(), email: z.string(), name: z.string().nullable(), createdAt: z.string() }).openapi('User');

export const TokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    refresh_token: z.string().optional().describe('Left out when the refresh token is set as a cookie (`refresh_cookie=true`, or a refresh by cookie)'),
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

export const PasswordChangeBody = z.strictObject({ currentPassword: z.string().min(1).max(200), newPassword: Password }).openapi('PasswordChangeBody');

export const StreamTicket = z
  .object({ ticket: z.string(), expiresIn: z.number().int().openapi({ description: 'Seconds the ticket stays valid (30); it works for one connect' }) })
  .openapi('StreamTicket');
