import type { Actor } from '../context.js';
import { unauthorized } from '../http/errors.js';

/** The Integration API acts in the key's own workspace; the auth middleware guarantees a key. */
export function keyWorkspaceId(actor: Actor): number {
  if (actor.kind !== 'apiKey') throw unauthorized('An API key is required');
  return actor.workspaceId;
}
