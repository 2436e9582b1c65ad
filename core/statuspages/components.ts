import type { Ctx } from '../context.js';
import { manageRole } from '../auth/authorize.js';
import { readCheckById } from '../checks/repository.js';
import type { Deps } from '../deps.js';
import { badRequest, notFound } from '../http/errors.js';
import type { StatusComponentItem } from '../store/entities/statusComponent.js';
import { COMPONENT_TARGET_FIELDS, reorderProblem, type Component, type ComponentCreate, type ComponentTargetField, type ComponentUpdate } from './schema.js';
import { byPosition, componentFields, readComponents, refreshSnapshot, targetKeyOf } from './store/snapshot.js';
import { loadStatusPage } from './load.js';

/** The dashboard's component: the snapshot's fields plus where it belongs and when it last changed. */
export const toComponent = (c: StatusComponentItem): Component => ({
  ...componentFields(c),
  integrationId: c.integrationId ?? null,
  statusPageId: c.statusPageId,
  updatedAt: c.updatedAt,
});

type Target = { checkId?: number | undefined; projectId?: number | undefined; dependencyId?: number | undefined; integrationId?: number | undefined };

/** The target must live in the page's workspace: a foreign or unknown id is 404, as everywhere. */
async function requireTarget(deps: Deps, workspaceId: number, target: Target): Promise<void> {
  if (target.checkId !== undefined) {
    const check = await readCheckById(deps, target.checkId);
    if (!check || check.workspaceId !== workspaceId) throw notFound('Check');
  } else if (target.projectId !== undefined) {
    const project = (await deps.store.entities.project.get({ projectId: target.projectId }).go()).data;
    if (!project || project.workspaceId !== workspaceId) throw notFound('Project');
  } else if (target.dependencyId !== undefined) {
    const dependency = (await deps.store.entities.dependency.get({ dependencyId: target.dependencyId }).go()).data;
    if (!dependency || dependency.workspaceId !== workspaceId) throw notFound('Dependency');
  } else if (target.integrationId !== undefined) {
    const integration = (await deps.store.entities.integration.get({ integrationId: target.integrationId }).go()).data;
    if (!integration || integration.workspaceId !== workspaceId) throw notFound('Integration');
  }
}

export async function listComponents(ctx: Ctx, statusPageId: number): Promise<Component[]> {
  await loadStatusPage(ctx, statusPageId);
  return byPosition((await readComponents(ctx.deps, statusPageId)).map(toComponent));
}

export async function createComponent(ctx: Ctx, statusPageId: number, input: ComponentCreate): Promise<Component> {
  const { deps } = ctx;
  const page = await loadStatusPage(ctx, statusPageId, manageRole(ctx.actor));
  await requireTarget(deps, page.workspaceId, input);
  const componentId = await deps.store.nextId('statusComponent');
  const iso = deps.clock.now().toISOString();
  // Before the component exists: a status change handled after it must not skip the pages (core/statuspages/hooks.ts).
  await deps.store.entities.workspace.patch({ workspaceId: page.workspaceId }).remove(['noStatusComponents']).go();
  const created = await deps.store.entities.statusComponent
    .create({
      statusPageId,
      componentId,
      workspaceId: page.workspaceId,
      name: input.name,
      description: input.description ?? undefined,
      groupName: input.groupName ?? undefined,
      position: input.position,
      showUptimeBar: input.showUptimeBar,
      checkId: input.checkId,
      projectId: input.projectId,
      dependencyId: input.dependencyId,
      integrationId: input.integrationId,
      targetKey: targetKeyOf(input),
      createdAt: iso,
      updatedAt: iso,
    })
    .go();
  await refreshSnapshot(deps, statusPageId);
  return toComponent(created.data);
}

async function loadComponent(deps: Deps, statusPageId: number, componentId: number): Promise<StatusComponentItem> {
  const found = (await deps.store.entities.statusComponent.get({ statusPageId, componentId }).go({ consistent: true })).data;
  if (!found) throw notFound('Component');
  return found;
}

export async function updateComponent(ctx: Ctx, statusPageId: number, componentId: number, patch: ComponentUpdate): Promise<Component> {
  const { deps } = ctx;
  const page = await loadStatusPage(ctx, statusPageId, manageRole(ctx.actor));
  await loadComponent(deps, statusPageId, componentId);
  const retarget = COMPONENT_TARGET_FIELDS.some((field) => patch[field] !== undefined);
  if (retarget) await requireTarget(deps, page.workspaceId, patch);
  const set: Partial<StatusComponentItem> = { updatedAt: deps.clock.now().toISOString() };
  const remove: ('description' | 'groupName' | ComponentTargetField)[] = [];
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.position !== undefined) set.position = patch.position;
  if (patch.showUptimeBar !== undefined) set.showUptimeBar = patch.showUptimeBar;
  if (patch.description === null) remove.push('description');
  else if (patch.description !== undefined) set.description = patch.description;
  if (patch.groupName === null) remove.push('groupName');
  else if (patch.groupName !== undefined) set.groupName = patch.groupName;
  if (retarget) {
    for (const field of COMPONENT_TARGET_FIELDS) {
      if (patch[field] !== undefined) set[field] = patch[field];
      else remove.push(field);
    }
    set.targetKey = targetKeyOf(patch);
  }
  const write = deps.store.entities.statusComponent.patch({ statusPageId, componentId }).set(set);
  const updated = await (remove.length > 0 ? write.remove(remove) : write).go({ response: 'all_new' });
  await refreshSnapshot(deps, statusPageId);
  return toComponent(updated.data as StatusComponentItem);
}

export async function deleteComponent(ctx: Ctx, statusPageId: number, componentId: number): Promise<void> {
  await loadStatusPage(ctx, statusPageId, manageRole(ctx.actor));
  await loadComponent(ctx.deps, statusPageId, componentId);
  await ctx.deps.store.entities.statusComponent.delete({ statusPageId, componentId }).go();
  await refreshSnapshot(ctx.deps, statusPageId);
}

/** Takes the page's complete list in the new order and rewrites positions 0..n-1. */
export async function reorderComponents(ctx: Ctx, statusPageId: number, componentIds: number[]): Promise<Component[]> {
  const { deps } = ctx;
  await loadStatusPage(ctx, statusPageId, manageRole(ctx.actor));
  const existing = await readComponents(deps, statusPageId);
  const problem = reorderProblem(
    existing.map((c) => c.componentId),
    componentIds,
  );
  if (problem) throw badRequest(problem, [{ path: 'componentIds', message: problem }]);
  const iso = deps.clock.now().toISOString();
  const result: Component[] = [];
  for (const [position, componentId] of componentIds.entries()) {
    const updated = await deps.store.entities.statusComponent.patch({ statusPageId, componentId }).set({ position, updatedAt: iso }).go({ response: 'all_new' });
    result.push(toComponent(updated.data as StatusComponentItem));
  }
  await refreshSnapshot(deps, statusPageId);
  return result;
}

/** The component ids must all be components of the page (404 otherwise, as every foreign id). */
export async function requirePageComponents(deps: Deps, statusPageId: number, componentIds: readonly number[]): Promise<void> {
  if (componentIds.length === 0) return;
  const known = new Set((await readComponents(deps, statusPageId)).map((c) => c.componentId));
  const missing = componentIds.find((id) => !known.has(id));
  if (missing !== undefined) throw notFound(`Component ${missing}`);
}
