/*
 * The dependency registry: the dependencies checks link to (`dependencyId(s)`) and report in
 * their pings, below incidents (which register reported ones) and the dependencies resource
 * (core/dependencies/: its verbs and routes).
 */
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import { getAll } from '../store/batch.js';
import type { DependencyItem } from '../store/entities/dependency.js';
import { lockOwner } from '../store/locks.js';
import { isConditionalFailure, retryOnConflict } from '../store/conditional.js';
import { releaseDependencySlot, tryTakeDependencySlot } from './dependencyQuota.js';

/** The lock scope that makes a dependency name unique in a workspace; its owner is the dependency id. */
export const dependencyNameScope = (workspaceId: number): string => `dependency-name#${workspaceId}`;

/** Names compare case-insensitively and without surrounding spaces ("Postgres " is "postgres"). */
export const dependencyNameKey = (name: string): string => name.trim().toLowerCase();

export async function readDependency(deps: Deps, dependencyId: number): Promise<DependencyItem | undefined> {
  return (await deps.store.entities.dependency.get({ dependencyId }).go()).data ?? undefined;
}

/**
 * Every id must name a dependency of `workspaceId`; anything else does not exist (404). For the
 * checks area (`dependencyId`, `dependencyIds`) and incident declaration.
 */
export async function assertDependenciesInWorkspace(deps: Deps, workspaceId: number, ids: readonly number[]): Promise<DependencyItem[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const read = await getAll(
    deps.store,
    unique.map((dependencyId) => ({ dependencyId })),
    (keys) => deps.store.entities.dependency.get(keys).go(),
    'dependencies',
  );
  const found = new Map(read.map((d) => [d.dependencyId, d]));
  return unique.map((dependencyId) => {
    const dependency = found.get(dependencyId);
    if (!dependency || dependency.workspaceId !== workspaceId) throw notFound('Dependency');
    return dependency;
  });
}

const MAX_ATTEMPTS = 6;

/**
 * The dependency a ping payload names, registered (source REPORTED) on first sight. The name lock
 * decides the id; whoever finds the lock without its dependency writes that same id, so racing
 * workers and a crash between the two writes all end with one dependency.
 */
export async function ensureReportedDependency(deps: Deps, workspaceId: number, name: string, now: Date): Promise<DependencyItem | undefined> {
  const scope = dependencyNameScope(workspaceId);
  const value = dependencyNameKey(name);
  const iso = now.toISOString();
  let candidateId: number | undefined;
  return retryOnConflict(
    async () => {
      const owner = await lockOwner(deps.store, scope, value);
      let dependencyId: number;
      if (owner !== undefined) {
        dependencyId = Number(owner);
        const existing = await readDependency(deps, dependencyId);
        if (existing) return existing;
      } else {
        // A new name needs a slot of the plan's dependency limit; past it, the report is ignored.
        if (!(await tryTakeDependencySlot(deps, workspaceId))) return undefined;
        candidateId ??= await deps.store.nextId('dependency');
        dependencyId = candidateId;
        try {
          await deps.store.entities.lock.create({ scope, value, ownerId: String(dependencyId), createdAt: iso }).go();
        } catch (err) {
          await releaseDependencySlot(deps, workspaceId);
          throw err;
        }
      }
      const created = deps.store.entities.dependency.create({ dependencyId, workspaceId, name: name.trim(), source: 'REPORTED', createdAt: iso, updatedAt: iso });
      return (await created.go()).data;
    },
    { attempts: MAX_ATTEMPTS, onExhausted: () => new Error(`could not register dependency "${name}" in workspace ${workspaceId}`) },
  );
}

/** Records that `checkId` reported the dependency (shown among its linked checks). */
export async function linkReportingCheck(deps: Deps, dependency: DependencyItem, checkId: number, now: Date): Promise<void> {
  await deps.store.entities.dependencyLink
    .upsert({ dependencyId: dependency.dependencyId, checkId, workspaceId: dependency.workspaceId, reported: true, createdAt: now.toISOString() })
    .go();
}

/** The last reported status wins; an older report arriving late changes nothing. */
export async function recordReportedStatus(deps: Deps, dependency: DependencyItem, status: 'ok' | 'down', at: string): Promise<void> {
  try {
    await deps.store.entities.dependency
      .patch({ dependencyId: dependency.dependencyId })
      .set({ lastReportedStatus: status, lastReportedAt: at })
      .where((attr, op) => `${op.notExists(attr.lastReportedAt)} OR ${op.lte(attr.lastReportedAt, at)}`)
      .go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

/** Dependencies a check has reported, newest registrations last (for "check with its dependencies"). */
export async function reportedDependenciesOfCheck(deps: Deps, checkId: number): Promise<DependencyItem[]> {
  const links = (await deps.store.entities.dependencyLink.query.byCheck({ checkId }).go({ pages: 'all' })).data;
  const found = await Promise.all(links.map((link) => readDependency(deps, link.dependencyId)));
  return found.filter((d): d is DependencyItem => d !== undefined).sort((a, b) => a.dependencyId - b.dependencyId);
}
