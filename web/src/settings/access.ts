import { ApiError } from '../api/client';
import { useWorkspace } from '../workspace/context';

type Role = 'OWNER' | 'ADMIN' | 'MEMBER' | 'VIEWER';
const RANK: Record<Role, number> = { VIEWER: 0, MEMBER: 1, ADMIN: 2, OWNER: 3 };

/**
 * What the signed-in user may do in the current workspace, by the minimum roles the API enforces
 * (status pages and API keys: MEMBER; members: ADMIN), so a control it would refuse is not drawn.
 */
export function useRole() {
  const { role, workspaceId, me } = useWorkspace();
  const atLeast = (minimum: Role) => role !== null && RANK[role] >= RANK[minimum];
  return { role, workspaceId, me, atLeast, canWrite: atLeast('MEMBER'), canAdmin: atLeast('ADMIN') };
}

/**
 * An error in words. A 403 can still come with the controls hidden (the role changed since the
 * page loaded, or another tab acted): say that the role is the reason and who can help.
 */
export function explain(error: Error, role: Role | null): string {
  if (error instanceof ApiError && error.status === 403) {
    return `${role === null ? 'Your role' : `Your role (${role})`} in this workspace does not allow this: ${error.message}. A workspace admin or owner can do it, or change your role.`;
  }
  return error.message;
}
