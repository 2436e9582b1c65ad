import type { Ctx } from '../context.js';
import { authorize } from '../auth/authorize.js';
import { generateApiKey, sha256Hex } from '../auth/secrets.js';
import { notFound } from '../http/errors.js';
import type { ApiKeyItem } from '../store/entities/apiKey.js';

export const toApiKey = (k: ApiKeyItem) => ({
  id: k.apiKeyId,
  workspaceId: k.workspaceId,
  name: k.name,
  permission: k.permission,
  kind: k.kind,
  enabled: k.enabled,
  displayPrefix: k.displayPrefix,
  lastFour: k.lastFour,
  lastUsedAt: k.lastUsedAt ?? null,
  createdAt: k.createdAt,
  updatedAt: k.updatedAt,
});

/** Admins manage keys. The key is returned once; only its SHA-256 is stored. */
export async function createApiKey(ctx: Ctx, input: { workspaceId: number; name: string; permission: 'read_only' | 'read_write'; kind: 'service' | 'ping' }) {
  await authorize(ctx.deps, ctx.actor, input.workspaceId, 'ADMIN', 'Workspace');
  const { deps } = ctx;
  const key = generateApiKey(deps.config.keyPrefix);
  const iso = deps.clock.now().toISOString();
  const apiKeyId = await deps.store.nextId('apiKey');
  const created = await deps.store.entities.apiKey
    .create({
      keyHash: sha256Hex(key),
      apiKeyId,
      workspaceId: input.workspaceId,
      name: input.name,
      permission: input.permission,
      kind: input.kind,
      enabled: true,
      displayPrefix: key.slice(0, deps.config.keyPrefix.length + 5),
      lastFour: key.slice(-4),
      createdBy: ctx.actor.kind === 'user' ? ctx.actor.userId : undefined,
      createdAt: iso,
      updatedAt: iso,
    })
    .go();
  return { ...toApiKey(created.data), key };
}

export async function listApiKeys(ctx: Ctx, workspaceId: number) {
  await authorize(ctx.deps, ctx.actor, workspaceId, 'ADMIN', 'Workspace');
  const result = await ctx.deps.store.entities.apiKey.query.byWorkspace({ workspaceId }).go({ pages: 'all' });
  return result.data.sort((a, b) => a.apiKeyId - b.apiKeyId);
}

async function loadKey(ctx: Ctx, apiKeyId: number): Promise<ApiKeyItem> {
  const found = (await ctx.deps.store.entities.apiKey.query.byId({ apiKeyId }).go()).data[0];
  if (!found) throw notFound('API key');
  await authorize(ctx.deps, ctx.actor, found.workspaceId, 'ADMIN', 'API key');
  return found;
}

export async function updateApiKey(ctx: Ctx, apiKeyId: number, input: { enabled?: boolean | undefined; name?: string | undefined }) {
  const key = await loadKey(ctx, apiKeyId);
  const updated = await ctx.deps.store.entities.apiKey
    .patch({ keyHash: key.keyHash })
    .set({
      updatedAt: ctx.deps.clock.now().toISOString(),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.name !== undefined ? { name: input.name } : {}),
    })
    .go({ response: 'all_new' });
  return toApiKey({ ...key, ...updated.data });
}

export async function deleteApiKey(ctx: Ctx, apiKeyId: number): Promise<void> {
  const key = await loadKey(ctx, apiKeyId);
  await ctx.deps.store.entities.apiKey.delete({ keyHash: key.keyHash }).go();
}
