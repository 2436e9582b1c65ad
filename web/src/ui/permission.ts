import { ApiError } from '../api/client';
import { useWorkspace } from '../workspace/context';

export type Role = 'OWNER' | 'ADMIN' | 'MEMBER' | 'VIEWER';

const RANK: Record<Role, number> = { VIEWER: 0, MEMBER: 1, ADMIN: 2, OWNER: 3 };

/** Whether the workspace role reaches `minimum`: a control the role may not use is not shown at all. */
export const allows = (role: Role | null, minimum: Role): boolean => role !== null && RANK[role] >= RANK[minimum];

/**
 * What the signed-in user may do in the current workspace, by the minimum roles the API enforces
 * (MEMBER writes, ADMIN administers), so a control the API would refuse is not drawn.
 */
export function useAccess() {
  const { role, workspaceId, me } = useWorkspace();
  const atLeast = (minimum: Role) => allows(role, minimum);
  return { role, workspaceId, me, atLeast, canWrite: atLeast('MEMBER'), canAdmin: atLeast('ADMIN') };
}

/**
 * An error as a sentence for the person who caused it. A 403 can still happen with the controls
 * hidden (the role changed since the page loaded, or a MEMBER acts for someone else), so it says
 * which role the workspace gives them and what the server refused, rather than "Forbidden".
 */
export function explainError(error: Error, role?: Role | null): string {
  if (error instanceof ApiError && error.status === 403) {
    const yours = role ? `Your role (${role})` : 'Your role';
    return `${yours} in this workspace does not allow this: ${error.message}. Ask a workspace admin or owner for access.`;
  }
  return error.message;
}
