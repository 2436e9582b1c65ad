import { releaseDependencySlot, takeDependencySlot } from '../checks/dependencyQuota.js';
import type { Ctx } from '../context.js';
import { authorize } from '../auth/authorize.js';
import { listWorkspaceChecks, updateCheckGuarded } from '../checks/repository.js';
import type { Deps } from '../deps.js';
import { conflict, HttpError, notFound } from '../http/errors.js';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { envelope } from '../http/pagination.js';
import { getAll } from '../store/batch.js';
import { queryProjected } from '../store/projected.js';
import { episodeKeyFor, resolveEpisode } from '../incidents/episodes.js';
import type { CheckItem } from '../store/entities/check.js';
import type { DependencyItem } from '../store/entities/dependency.js';
import { acquireLock, releaseLock } from '../store/locks.js';
import { dependencyNameKey, dependencyNameScope, readDependency } from '../checks/dependencyRegistry.js';
import { toDependency } from './present.js';

type Category = NonNullable<DependencyItem['category']>;

/** A dependency the caller may act on at `minimum`, or 404: missing and foreign look the same. */
async function loadDependency(ctx: Ctx, dependencyId: number, minimum: 'VIEWER' | 'MEMBER' | 'ADMIN'): Promise<DependencyItem> {
  const dependency = await readDependency(ctx.deps, dependencyId);
  if (!dependency) throw notFound('Dependency');
  await authorize(ctx.deps, ctx.actor, dependency.workspaceId, minimum, 'Dependency');
  return dependency;
}

/** Takes the workspace-unique name for `dependencyId` or 409s; an orphan lock from a crash is taken over. */
async function claimName(deps: Deps, workspaceId: number, name: string, dependencyId: number, now: Date): Promise<void> {
  const alive = async (owner: string) => (await readDependency(deps, Number(owner)))?.workspaceId === workspaceId;
  if (!(await acquireLock(deps.store, dependencyNameScope(workspaceId), dependencyNameKey(name), String(dependencyId), now, alive))) {
    throw conflict(`A dependency named "${name.trim()}" already exists in this workspace`);
  }
}

export async function createDependency(
  ctx: Ctx,
  input: { workspaceId: number; name: string; description?: string | undefined; category?: Category | undefined; url?: string | undefined },
): Promise<DependencyItem> {
  await authorize(ctx.deps, ctx.actor, input.workspaceId, 'MEMBER', 'Workspace');
  const now = ctx.deps.clock.now();
  const iso = now.toISOString();
  await takeDependencySlot(ctx.deps, input.workspaceId);
  const dependencyId = await ctx.deps.store.nextId('dependency');
  try {
    await claimName(ctx.deps, input.workspaceId, input.name, dependencyId, now);
  } catch (err) {
    await releaseDependencySlot(ctx.deps, input.workspaceId);
    throw err;
  }
  try {
    return (await ctx.deps.store.entities.dependency.create({ ...input, dependencyId, source: 'MANUAL', createdAt: iso, updatedAt: iso }).go()).data;
  } catch (err) {
    await releaseLock(ctx.deps.store, dependencyNameScope(input.workspaceId), dependencyNameKey(input.name), String(dependencyId));
    await releaseDependencySlot(ctx.deps, input.workspaceId);
    throw err;
  }
}

export async function listDependencies(ctx: Ctx, query: { workspaceId: number; page: number; limit: number; orderBy: 'name' | 'createdAt' | 'id'; order: 'ASC' | 'DESC' }) {
  await authorize(ctx.deps, ctx.actor, query.workspaceId, 'VIEWER', 'Workspace');
  const { dependency } = ctx.deps.store.entities;
  // What orders the list is read for every dependency; the page is read whole.
  type Summary = Pick<DependencyItem, 'dependencyId' | 'name' | 'createdAt'>;
  const params = dependency.query.byWorkspace({ workspaceId: query.workspaceId }).params<QueryCommandInput>();
  const all = await queryProjected<Summary>(ctx.deps.store, params, ['dependencyId', 'name', 'createdAt']);
  const direction = query.order === 'ASC' ? 1 : -1;
  const key = (d: Summary): string | number => (query.orderBy === 'name' ? d.name.toLowerCase() : query.orderBy === 'createdAt' ? d.createdAt : d.dependencyId);
  all.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    const primary = typeof ka === 'number' && typeof kb === 'number' ? ka - kb : String(ka).localeCompare(String(kb));
    return direction * (primary || a.dependencyId - b.dependencyId);
  });
  const wanted = all.slice((query.page - 1) * query.limit, query.page * query.limit);
  const read = await getAll(
    ctx.deps.store,
    wanted.map(({ dependencyId }) => ({ dependencyId })),
    (keys) => dependency.get(keys).go(),
    'dependencies',
  );
  const byId = new Map(read.map((item) => [item.dependencyId, item]));
  const items = wanted.map(({ dependencyId }) => byId.get(dependencyId)).filter((item): item is DependencyItem => item !== undefined);
  return envelope(items.map(toDependency), all.length, query.page, query.limit);
}

type LinkKind = 'DEPENDENCY' | 'DEPENDENCY_IDS' | 'REPORTED';

/**
 * The checks linked to a dependency: those naming it (dependencyId, dependencyIds; found with a
 * query of the workspace's checks) and those that reported it (link items).
 */
async function linkedChecks(deps: Deps, dependency: DependencyItem): Promise<{ check: CheckItem; link: LinkKind }[]> {
  const id = dependency.dependencyId;
  const checks = await listWorkspaceChecks(deps, dependency.workspaceId);
  const reported = new Set((await deps.store.entities.dependencyLink.query.byDependency({ dependencyId: id }).go({ pages: 'all' })).data.map((l) => l.checkId));
  return checks.flatMap((check) => {
    const link: LinkKind | undefined =
      check.dependencyId === id ? 'DEPENDENCY' : check.dependencyIds?.includes(id) ? 'DEPENDENCY_IDS' : reported.has(check.checkId) ? 'REPORTED' : undefined;
    return link ? [{ check, link }] : [];
  });
}

export async function getDependency(ctx: Ctx, dependencyId: number) {
  const dependency = await loadDependency(ctx, dependencyId, 'VIEWER');
  const workspace = (await ctx.deps.store.entities.workspace.get({ workspaceId: dependency.workspaceId }).go()).data;
  const checks = await linkedChecks(ctx.deps, dependency);
  return {
    ...toDependency(dependency),
    workspace: { id: dependency.workspaceId, name: workspace?.name ?? '' },
    checks: checks.map(({ check, link }) => ({
      id: check.checkId,
      name: check.name,
      projectId: check.projectId ?? null,
      status: check.status,
      checkMode: check.checkMode,
      link,
    })),
  };
}

export async function updateDependency(
  ctx: Ctx,
  dependencyId: number,
  input: { name?: string | undefined; description?: string | null | undefined; category?: Category | null | undefined; url?: string | null | undefined },
): Promise<DependencyItem> {
  const dependency = await loadDependency(ctx, dependencyId, 'ADMIN');
  const now = ctx.deps.clock.now();
  const renamed = input.name !== undefined && dependencyNameKey(input.name) !== dependencyNameKey(dependency.name);
  if (renamed && input.name !== undefined) await claimName(ctx.deps, dependency.workspaceId, input.name, dependencyId, now);
  const set = {
    updatedAt: now.toISOString(),
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(typeof input.description === 'string' ? { description: input.description } : {}),
    ...(input.category ? { category: input.category } : {}),
    ...(typeof input.url === 'string' ? { url: input.url } : {}),
  };
  const remove = (['description', 'category', 'url'] as const).filter((field) => input[field] === null);
  let patch = ctx.deps.store.entities.dependency.patch({ dependencyId }).set(set);
  if (remove.length > 0) patch = patch.remove([...remove]);
  const updated = (await patch.go({ response: 'all_new' })).data;
  if (renamed) await releaseLock(ctx.deps.store, dependencyNameScope(dependency.workspaceId), dependencyNameKey(dependency.name), String(dependencyId));
  return updated as DependencyItem; // all_new: the whole item, without the removed attributes
}

/**
 * Deletes the dependency. Linked checks are kept and lose the association; its open
 * DEPENDENCY_DOWN incidents are resolved; the name becomes free.
 */
export async function deleteDependency(ctx: Ctx, dependencyId: number): Promise<void> {
  const dependency = await loadDependency(ctx, dependencyId, 'ADMIN');
  const { deps } = ctx;
  const now = deps.clock.now();
  const resolveAt = { cause: 'DEPENDENCY_DELETED' as const, at: now.toISOString() };
  for (const { check, link } of await linkedChecks(deps, dependency)) {
    if (link !== 'REPORTED') await unlinkCheck(deps, check, dependencyId, now);
  }
  const links = (await deps.store.entities.dependencyLink.query.byDependency({ dependencyId }).go({ pages: 'all' })).data;
  for (const link of links) {
    await resolveEpisode(deps, { checkId: link.checkId, episodeKey: episodeKeyFor({ reason: 'DEPENDENCY_DOWN', dependencyId }) }, resolveAt, now);
    await deps.store.entities.dependencyLink.delete({ dependencyId, checkId: link.checkId }).go();
  }
  await deps.store.entities.dependency.delete({ dependencyId }).go();
  await releaseDependencySlot(deps, dependency.workspaceId);
  await releaseLock(deps.store, dependencyNameScope(dependency.workspaceId), dependencyNameKey(dependency.name), String(dependencyId));
}

async function unlinkCheck(deps: Deps, check: CheckItem, dependencyId: number, now: Date): Promise<void> {
  try {
    await updateCheckGuarded(deps, check.token, (current) => {
      const ids = current.dependencyIds ?? [];
      const keepIds = ids.filter((id) => id !== dependencyId);
      const dropSingle = current.dependencyId === dependencyId;
      if (keepIds.length === ids.length && !dropSingle) return null;
      return {
        set: { updatedAt: now.toISOString(), ...(keepIds.length !== ids.length ? { dependencyIds: keepIds } : {}) },
        remove: dropSingle ? ['dependencyId'] : [],
      };
    });
  } catch (err) {
    // Deleted meanwhile: nothing left to unlink.
    if (!(err instanceof HttpError && err.status === 404)) throw err;
  }
}
