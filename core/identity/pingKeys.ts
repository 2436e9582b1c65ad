import type { Ctx } from '../context.js';
import type { Deps } from '../deps.js';
import { randomToken, sha256Hex } from '../auth/secrets.js';
import { conflict } from '../http/errors.js';
import type { ProjectItem } from '../store/entities/project.js';
import { isConditionalFailure } from '../store/conditional.js';
import { lockOwner, releaseLock } from '../store/locks.js';
import { getProject } from './projects.js';

/**
 * The lock that maps a ping key's SHA-256 to its project: one GetItem resolves a key, as a
 * Healthchecks ping key resolves to its project. Only the hash is stored (the key is shown once),
 * like an API key's; a ping key is no API key: it authenticates nothing but slug pings of its
 * project on the Healthchecks-compatible path (core/signals/hcPing.ts).
 */
const PING_KEY_SCOPE = 'project-ping-key';

/**
 * Creates the project's ping key, or replaces it (the old one stops resolving at once). Why 16
 * random bytes in base64url (22 characters): Healthchecks' own ping keys have that shape
 * (`fqOOd6-F4MMNuCEnzTU01w` in its docs), so tools that validate one accept ours.
 */
export async function rotateProjectPingKey(ctx: Ctx, projectId: number): Promise<{ projectId: number; pingKey: string; createdAt: string }> {
  const project = await getProject(ctx, projectId, 'ADMIN');
  const { deps } = ctx;
  const pingKey = randomToken(16);
  const hash = sha256Hex(pingKey);
  const createdAt = deps.clock.now().toISOString();
  // The lookup first: a key is usable only once its project names it, and a key whose project
  // write lost (another rotation won) is removed again.
  await deps.store.entities.lock.create({ scope: PING_KEY_SCOPE, value: hash, ownerId: String(projectId), createdAt }).go();
  try {
    const patch = deps.store.entities.project.patch({ projectId }).set({ pingKeyHash: hash, updatedAt: createdAt });
    const previous = project.pingKeyHash;
    await (previous === undefined ? patch.where((attr, op) => op.notExists(attr.pingKeyHash)) : patch.where((attr, op) => op.eq(attr.pingKeyHash, previous))).go();
    if (previous !== undefined) await releaseLock(deps.store, PING_KEY_SCOPE, previous, String(projectId));
  } catch (err) {
    await releaseLock(deps.store, PING_KEY_SCOPE, hash, String(projectId));
    if (isConditionalFailure(err)) throw conflict('The ping key was rotated meanwhile; try again');
    throw err;
  }
  return { projectId, pingKey, createdAt };
}

const PING_KEY_SHAPE = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The project a presented ping key names, or undefined: two GetItems (the lock, then the project,
 * which must still name this key's hash, so a rotated-away or deleted project's key is dead).
 */
export async function projectByPingKey(deps: Deps, pingKey: string): Promise<ProjectItem | undefined> {
  if (!PING_KEY_SHAPE.test(pingKey)) return undefined;
  const hash = sha256Hex(pingKey);
  const owner = await lockOwner(deps.store, PING_KEY_SCOPE, hash);
  if (owner === undefined) return undefined;
  const project = (await deps.store.entities.project.get({ projectId: Number(owner) }).go()).data;
  return project && project.pingKeyHash === hash ? project : undefined;
}
