import type { Ctx } from '../context.js';
import { authorize, manageRole } from '../auth/authorize.js';
import type { Role } from '../auth/roles.js';
import { randomToken, sha256Hex } from '../auth/secrets.js';
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import type { Severity } from '../incidents/transition.js';
import type { IntegrationItem } from '../store/entities/integration.js';
import { DEFAULT_SEVERITY_MAP, SeverityMap, type IntegrationCreate, type IntegrationUpdate } from './schema.js';

/**
 * Integrations: alerts in from the tools teams already run. VIEWER reads; ADMIN (or a
 * read_write API key on /v1) manages. The intake secret is shown once and kept only as a hash.
 */

/** `vin_` and 32 random bytes: a capability in a URL, unguessable, recognisable in a leak scan. */
const newSecret = (): string => `vin_${randomToken(32)}`;

export const intakeUrlOf = (deps: Deps, secret: string): string => `${deps.config.publicUrl}/api/integrations/intake/${secret}`;

export function severityMapOf(item: Pick<IntegrationItem, 'severityMapJson'>): Record<string, Severity> {
  const parsed = SeverityMap.safeParse(JSON.parse(item.severityMapJson));
  return parsed.success ? parsed.data : { ...DEFAULT_SEVERITY_MAP };
}

export const toIntegration = (item: IntegrationItem) => ({
  id: item.integrationId,
  workspaceId: item.workspaceId,
  name: item.name,
  kind: item.kind,
  projectId: item.projectId ?? null,
  enabled: item.enabled,
  defaultSeverity: item.defaultSeverity,
  severityMap: severityMapOf(item),
  grouping: item.grouping,
  secretHint: item.secretHint,
  createdAt: item.createdAt,
  updatedAt: item.updatedAt,
});

async function requireProjectInWorkspace(deps: Deps, workspaceId: number, projectId: number): Promise<void> {
  const project = (await deps.store.entities.project.get({ projectId }).go()).data;
  if (!project || project.workspaceId !== workspaceId) throw notFound('Project');
}

export async function createIntegration(ctx: Ctx, input: IntegrationCreate & { workspaceId: number }) {
  await authorize(ctx.deps, ctx.actor, input.workspaceId, manageRole(ctx.actor), 'Workspace');
  if (input.projectId !== undefined) await requireProjectInWorkspace(ctx.deps, input.workspaceId, input.projectId);
  const iso = ctx.deps.clock.now().toISOString();
  const secret = newSecret();
  const integrationId = await ctx.deps.store.nextId('integration');
  const created = await ctx.deps.store.entities.integration
    .create({
      integrationId,
      workspaceId: input.workspaceId,
      name: input.name,
      kind: input.kind,
      projectId: input.projectId,
      enabled: input.enabled ?? true,
      secretHash: sha256Hex(secret),
      secretHint: secret.slice(-4),
      defaultSeverity: input.defaultSeverity ?? 'P3',
      severityMapJson: JSON.stringify(input.severityMap ?? DEFAULT_SEVERITY_MAP),
      grouping: input.grouping ?? 'GROUP',
      createdBy: ctx.actor.kind === 'user' ? ctx.actor.userId : undefined,
      createdAt: iso,
      updatedAt: iso,
    })
    .go();
  return { ...toIntegration(created.data), intakeUrl: intakeUrlOf(ctx.deps, secret), secret };
}

/** Loads an integration the caller may use at `minimum`, or 404s: foreign ids do not exist. */
async function getIntegration(ctx: Ctx, integrationId: number, minimum: Role | 'manage' = 'VIEWER'): Promise<IntegrationItem> {
  const item = (await ctx.deps.store.entities.integration.get({ integrationId }).go({ consistent: true })).data;
  if (!item) throw notFound('Integration');
  await authorize(ctx.deps, ctx.actor, item.workspaceId, minimum === 'manage' ? manageRole(ctx.actor) : minimum, 'Integration');
  return item;
}

export async function listIntegrations(ctx: Ctx, workspaceId: number) {
  await authorize(ctx.deps, ctx.actor, workspaceId, 'VIEWER', 'Workspace');
  const result = await ctx.deps.store.entities.integration.query.byWorkspace({ workspaceId }).go({ pages: 'all' });
  return result.data.sort((a, b) => a.integrationId - b.integrationId).map(toIntegration);
}

export async function viewIntegration(ctx: Ctx, integrationId: number) {
  return toIntegration(await getIntegration(ctx, integrationId));
}

export async function updateIntegration(ctx: Ctx, integrationId: number, input: IntegrationUpdate) {
  const current = await getIntegration(ctx, integrationId, 'manage');
  if (input.projectId != null) await requireProjectInWorkspace(ctx.deps, current.workspaceId, input.projectId);
  const patch = ctx.deps.store.entities.integration.patch({ integrationId }).set({
    updatedAt: ctx.deps.clock.now().toISOString(),
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
    ...(input.projectId != null ? { projectId: input.projectId } : {}),
    ...(input.defaultSeverity !== undefined ? { defaultSeverity: input.defaultSeverity } : {}),
    ...(input.severityMap !== undefined ? { severityMapJson: JSON.stringify(input.severityMap) } : {}),
    ...(input.grouping !== undefined ? { grouping: input.grouping } : {}),
  });
  const updated = await (input.projectId === null ? patch.remove(['projectId']) : patch).go({ response: 'all_new' });
  const { projectId: _removed, ...kept } = current;
  return toIntegration({ ...(input.projectId === null ? kept : current), ...updated.data });
}

/** A new secret replaces the old one in one write: the old URL answers 404 from then on. */
export async function rotateIntegrationSecret(ctx: Ctx, integrationId: number) {
  const current = await getIntegration(ctx, integrationId, 'manage');
  const secret = newSecret();
  const updated = await ctx.deps.store.entities.integration
    .patch({ integrationId })
    .set({ secretHash: sha256Hex(secret), secretHint: secret.slice(-4), updatedAt: ctx.deps.clock.now().toISOString() })
    .go({ response: 'all_new' });
  return { ...toIntegration({ ...current, ...updated.data }), intakeUrl: intakeUrlOf(ctx.deps, secret), secret };
}

/** Its incidents stay (they are ordinary incidents, resolved by hand from now on). */
export async function deleteIntegration(ctx: Ctx, integrationId: number): Promise<void> {
  await getIntegration(ctx, integrationId, 'manage');
  await ctx.deps.store.entities.integration.delete({ integrationId }).go();
}

/**
 * The enabled integration a presented intake secret opens, or undefined. The index finds the
 * candidate; the item, read consistently, must still hold that hash (a rotation is immediate).
 */
export async function integrationBySecret(deps: Deps, secret: string): Promise<IntegrationItem | undefined> {
  if (secret.length < 8 || secret.length > 128) return undefined;
  const secretHash = sha256Hex(secret);
  const candidates = (await deps.store.entities.integration.query.bySecret({ secretHash }).go()).data;
  for (const candidate of candidates) {
    const item = (await deps.store.entities.integration.get({ integrationId: candidate.integrationId }).go({ consistent: true })).data;
    if (item && item.secretHash === secretHash && item.enabled) return item;
  }
  return undefined;
}
