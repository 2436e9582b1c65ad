import { ApiError } from '../api/client';
import { useWorkspace } from '../workspace/context';

type Role = 'OWNER' | 'ADMIN' | 'MEMBER' | 'VIEWER';
const RANK: Record<Role, number> = { VIEWER: 0, MEMBER: 1, ADMIN: 2, OWNER: 3 };

/**
 * What the signed-in user may do in the current workspace, by the same minimum roles the API
 * enforces, so a control the API would refuse is not drawn at all.
 */
export function useAccess() {
  const { role } = useWorkspace();
  const atLeast = (minimum: Role) => role !== null && RANK[role] >= RANK[minimum];
  return { role, atLeast, canAdmin: atLeast('ADMIN'), canWrite: atLeast('MEMBER') };
}

/**
 * An API error in words. A 403 means the role changed since the page loaded (or another tab
 * acted): say why and who can do it, rather than the bare status.
 */
export function problemText(error: Error): string {
  if (error instanceof ApiError && error.status === 403) {
    return `Your role in this workspace does not allow this (${error.message}). An admin or owner of the workspace can do it, or change your role.`;
  }
  return error.message;
}
