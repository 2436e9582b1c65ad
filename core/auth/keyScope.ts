import type { Actor, ApiKeyActor, Ctx } from '../context.js';
import { unauthorized } from '../http/errors.js';

/** The Integration API acts for a key; the auth middleware guarantees one. */
export function keyActor(actor: Actor): ApiKeyActor {
  if (actor.kind !== 'apiKey') throw unauthorized('An API key is required');
  return actor;
}

/** The Integration API acts in the key's own workspace. */
export const keyWorkspaceId = (actor: Actor): number => keyActor(actor).workspaceId;

/** `GET /v1/whoami`: the key and the workspace it acts in. */
export async function whoAmI(ctx: Ctx) {
  const key = keyActor(ctx.actor);
  const workspace = (await ctx.deps.store.entities.workspace.get({ workspaceId: key.workspaceId }).go()).data;
  return {
    workspace: { id: key.workspaceId, name: workspace?.name ?? '' },
    apiKey: { id: key.apiKeyId, name: key.name, permission: key.permission, kind: key.keyKind },
  };
}
