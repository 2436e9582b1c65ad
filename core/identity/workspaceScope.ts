import type { Ctx } from '../context.js';
import { badRequest } from '../http/errors.js';

/**
 * Which workspace a dashboard request means when it names none: the key's own for API keys, the
 * user's only workspace for a user in one; otherwise the caller must say.
 */
export async function resolveWorkspaceId({ deps, actor }: Ctx, requested: number | undefined): Promise<number> {
  if (requested !== undefined) return requested;
  if (actor.kind === 'apiKey') return actor.workspaceId;
  const memberships = (await deps.store.entities.membership.query.byUser({ userId: actor.userId }).go({ limit: 2 })).data;
  const only = memberships[0];
  if (memberships.length === 1 && only) return only.workspaceId;
  throw badRequest('workspaceId is required', [{ path: 'workspaceId', message: 'Required' }]);
}
