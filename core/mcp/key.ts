import type { ApiKeyActor, Ctx } from '../context.js';
import { unauthorized } from '../http/errors.js';

/** The MCP routes admit API keys only (apiKeyAuth); every tool acts in the key's own workspace. */
export function keyOf(ctx: Ctx): ApiKeyActor {
  if (ctx.actor.kind !== 'apiKey') throw unauthorized('An API key is required');
  return ctx.actor;
}

export const keyWorkspace = (ctx: Ctx): number => keyOf(ctx).workspaceId;
