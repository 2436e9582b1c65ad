import type { Ctx } from '../context.js';
import { authorize, manageRole } from '../auth/authorize.js';
import { withHashSlot } from '../auth/hashSlots.js';
import { hashPassword } from '../auth/secrets.js';
import type { Deps } from '../deps.js';
import { badRequest, conflict } from '../http/errors.js';
import { resolveWorkspaceId } from '../identity/workspaceScope.js';
import { retryOnConflict } from '../store/conditional.js';
import type { StatusPageItem } from '../store/entities/statusPage.js';
import { acquireLock, lockOwner, releaseLock } from '../store/locks.js';
import type { Config } from '../config.js';
import { customDomainProblem, normalizeDomain } from './domain.js';
import { CLAIM_FIELDS, DOMAIN_SCOPE, newClaim, verificationView } from './customDomain.js';
import { sanitizeTenantHtml } from './render/sanitize.js';
import { passwordProblem, slugShape, type StatusPage, type StatusPageCreate, type StatusPageDetail, type StatusPageUpdate } from './schema.js';
import { byPosition, readComponents, refreshSnapshot } from './store/snapshot.js';
import { toComponent } from './components.js';
import { forgetPage } from './store/viewCache.js';
import { deletePageAnnouncements } from './announcements.js';
import { deletePageSubscribers } from './subscribers/manage.js';
import { loadStatusPage } from './load.js';
import { untilProcessed } from '../store/batch.js';

export const SLUG_SCOPE = 'status-page-slug';
export { DOMAIN_SCOPE };

export const toStatusPage = (p: StatusPageItem): Omit<StatusPage, 'customDomainVerification'> => ({
  id: p.statusPageId,
  workspaceId: p.workspaceId,
  name: p.name,
  slug: p.slug,
  visibility: p.visibility,
  logoUrl: p.logoUrl ?? null,
  primaryColor: p.primaryColor ?? null,
  backgroundColor: p.backgroundColor ?? null,
  faviconUrl: p.faviconUrl ?? null,
  showUptimeHistory: p.showUptimeHistory,
  uptimeHistoryDays: p.uptimeHistoryDays,
  showIncidentHistory: p.showIncidentHistory,
  headerHtml: p.headerHtml ?? null,
  footerHtml: p.footerHtml ?? null,
  enabled: p.enabled,
  customDomain: p.customDomain ?? null,
  customDomainVerifiedAt: p.customDomainVerifiedAt ?? null,
  hasPassword: p.passwordHash !== undefined,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
});

/** The dashboard's page: its fields and, with a domain, the records that verify it. */
export const statusPageView =
  (config: Config) =>
  (p: StatusPageItem): StatusPage => ({ ...toStatusPage(p), customDomainVerification: verificationView(config, p) });

/** The install's own host names: a page may not claim them as its custom domain. */
const installHosts = (deps: Deps): string[] => {
  const hosts = [new URL(deps.config.publicUrl).hostname];
  if (deps.config.cnameTarget) hosts.push(deps.config.cnameTarget);
  return hosts;
};

function checkDomain(deps: Deps, domain: string): void {
  const problem = customDomainProblem(domain, installHosts(deps));
  if (problem) throw badRequest(`customDomain ${problem}`, [{ path: 'customDomain', message: problem }]);
}

/** A lock whose owner page is gone (or moved on) is an orphan: it may be taken over. */
const ownerHolds = (deps: Deps, slug: string) => async (ownerId: string) => {
  const page = (await deps.store.entities.statusPage.get({ statusPageId: Number(ownerId) }).go({ consistent: true })).data;
  return page !== null && page.slug === slug;
};

async function claimSlug(deps: Deps, slug: string, pageId: number): Promise<void> {
  const ok = await acquireLock(deps.store, SLUG_SCOPE, slug, String(pageId), deps.clock.now(), ownerHolds(deps, slug));
  if (!ok) throw conflict(`Slug ${slug} is already taken`, 'SLUG_TAKEN');
}

const hashPagePassword = (deps: Deps, password: string): Promise<string> => withHashSlot(deps, (slot) => hashPassword(slot, password, deps.config.passwordHashLogN));

export async function createStatusPage(ctx: Ctx, input: StatusPageCreate): Promise<StatusPageItem> {
  const { deps } = ctx;
  const workspaceId = await resolveWorkspaceId(ctx, input.workspaceId);
  await authorize(deps, ctx.actor, workspaceId, manageRole(ctx.actor), 'Workspace');
  if (input.customDomain) checkDomain(deps, input.customDomain);
  // Hashed before the slug is claimed: a busy process's 429 leaves no lock behind.
  const passwordHash = input.password === undefined ? undefined : await hashPagePassword(deps, input.password);
  const statusPageId = await deps.store.nextId('statusPage');
  await claimSlug(deps, input.slug, statusPageId);
  // A domain is only a claim until verified (customDomain.ts): nothing is locked for it here.
  const now = deps.clock.now();
  const iso = now.toISOString();
  const created = await deps.store.entities.statusPage
    .create({
      statusPageId,
      workspaceId,
      name: input.name,
      slug: input.slug,
      visibility: input.visibility,
      passwordHash,
      passwordVersion: 1,
      logoUrl: input.logoUrl ?? undefined,
      primaryColor: input.primaryColor ?? undefined,
      backgroundColor: input.backgroundColor ?? undefined,
      faviconUrl: input.faviconUrl ?? undefined,
      showUptimeHistory: input.showUptimeHistory,
      uptimeHistoryDays: input.uptimeHistoryDays,
      showIncidentHistory: input.showIncidentHistory,
      headerHtml: input.headerHtml ? sanitizeTenantHtml(input.headerHtml) : undefined,
      footerHtml: input.footerHtml ? sanitizeTenantHtml(input.footerHtml) : undefined,
      enabled: input.enabled,
      customDomain: input.customDomain ?? undefined,
      ...(input.customDomain ? newClaim(now) : {}),
      revision: 0,
      createdAt: iso,
      updatedAt: iso,
    })
    .go();
  await refreshSnapshot(deps, statusPageId);
  return created.data;
}

export async function listStatusPages(ctx: Ctx, requestedWorkspaceId: number | undefined): Promise<StatusPageItem[]> {
  const workspaceId = await resolveWorkspaceId(ctx, requestedWorkspaceId);
  await authorize(ctx.deps, ctx.actor, workspaceId, 'VIEWER', 'Workspace');
  return (await ctx.deps.store.entities.statusPage.query.byWorkspace({ workspaceId }).go({ pages: 'all' })).data;
}

export async function getStatusPageDetail(ctx: Ctx, statusPageId: number): Promise<StatusPageDetail> {
  const page = await loadStatusPage(ctx, statusPageId);
  const components = byPosition((await readComponents(ctx.deps, statusPageId)).map((c) => ({ ...toComponent(c), id: c.componentId })));
  return { ...statusPageView(ctx.deps.config)(page), components };
}

/** The page that holds a slug now (an orphan lock holds nothing), whatever its workspace: callers must not tell a foreign one apart. */
export async function pageHoldingSlug(deps: Deps, slug: string): Promise<StatusPageItem | undefined> {
  const owner = await lockOwner(deps.store, SLUG_SCOPE, slug);
  if (owner === undefined) return undefined;
  const page = (await deps.store.entities.statusPage.get({ statusPageId: Number(owner) }).go({ consistent: true })).data;
  return page !== null && page.slug === slug ? page : undefined;
}

/** `check-slug`: never an error for a well-formed query; malformed, reserved and taken are all "not available". */
export async function isSlugAvailable(deps: Deps, slug: string): Promise<boolean> {
  if (slugShape(slug) !== 'OK') return false;
  return (await pageHoldingSlug(deps, slug)) === undefined;
}

export async function updateStatusPage(ctx: Ctx, statusPageId: number, patch: StatusPageUpdate): Promise<StatusPageItem> {
  const { deps } = ctx;
  const current = await loadStatusPage(ctx, statusPageId, manageRole(ctx.actor));
  const problem = passwordProblem({ visibility: current.visibility, hasPassword: current.passwordHash !== undefined }, patch);
  if (problem) throw badRequest(`password: ${problem}`, [{ path: 'password', message: problem }]);
  const newSlug = patch.slug !== undefined && patch.slug !== current.slug ? patch.slug : undefined;
  const domainPatch = patch.customDomain === undefined ? undefined : patch.customDomain === null ? null : normalizeDomain(patch.customDomain);
  const domainChanges = domainPatch !== undefined && domainPatch !== (current.customDomain ?? null);
  if (domainChanges && domainPatch) checkDomain(deps, domainPatch);
  const passwordHash = patch.password === undefined ? undefined : await hashPagePassword(deps, patch.password);
  if (newSlug) await claimSlug(deps, newSlug, statusPageId);
  const updated = await retryOnConflict(
    async (attempt) => {
      const page = attempt === 1 ? current : await loadStatusPage(ctx, statusPageId, manageRole(ctx.actor));
      const set: Partial<StatusPageItem> = { revision: page.revision + 1, updatedAt: deps.clock.now().toISOString() };
      const remove: (keyof StatusPageItem)[] = [];
      const assign = <K extends keyof StatusPageItem>(key: K, value: StatusPageItem[K] | null | undefined) => {
        if (value === undefined) return;
        if (value === null) remove.push(key);
        else set[key] = value;
      };
      assign('name', patch.name);
      assign('slug', newSlug);
      assign('visibility', patch.visibility);
      assign('logoUrl', patch.logoUrl);
      assign('primaryColor', patch.primaryColor);
      assign('backgroundColor', patch.backgroundColor);
      assign('faviconUrl', patch.faviconUrl);
      assign('showUptimeHistory', patch.showUptimeHistory);
      assign('uptimeHistoryDays', patch.uptimeHistoryDays);
      assign('showIncidentHistory', patch.showIncidentHistory);
      assign('headerHtml', patch.headerHtml === undefined || patch.headerHtml === null ? patch.headerHtml : sanitizeTenantHtml(patch.headerHtml));
      assign('footerHtml', patch.footerHtml === undefined || patch.footerHtml === null ? patch.footerHtml : sanitizeTenantHtml(patch.footerHtml));
      assign('enabled', patch.enabled);
      if (passwordHash !== undefined) {
        set.passwordHash = passwordHash;
        set.passwordVersion = page.passwordVersion + 1;
        set.passwordSetAt = set.updatedAt;
      }
      if (patch.visibility !== undefined && patch.visibility !== 'PASSWORD_PROTECTED' && page.passwordHash !== undefined) {
        // The password goes with the visibility that needs it, and so do its sessions.
        remove.push('passwordHash');
        set.passwordVersion = page.passwordVersion + 1;
      }
      if (domainChanges) {
        // A new name is a new claim: a new token, 7 days to verify it, and no verification carried over.
        assign('customDomain', domainPatch);
        const claim = domainPatch ? newClaim(deps.clock.now()) : {};
        Object.assign(set, claim);
        for (const field of CLAIM_FIELDS) if (!(field in claim) && page[field] !== undefined) remove.push(field);
      }
      const write = deps.store.entities.statusPage.patch({ statusPageId }).set(set);
      const withRemove = remove.length > 0 ? write.remove(remove as Parameters<typeof write.remove>[0]) : write;
      return (await withRemove.where((attr, op) => op.eq(attr.revision, page.revision)).go({ response: 'all_new' })).data as StatusPageItem;
    },
    { what: 'status page update' },
  );
  if (newSlug) await releaseLock(deps.store, SLUG_SCOPE, current.slug, String(statusPageId));
  // Only held when it was verified; releasing is conditional on this page being the owner.
  if (domainChanges && current.customDomain) await releaseLock(deps.store, DOMAIN_SCOPE, current.customDomain, String(statusPageId));
  await refreshSnapshot(deps, statusPageId);
  if (accessNarrowed(current, updated)) await deps.broadcaster.closePageStreams(statusPageId);
  return updated;
}

/**
 * Whether viewers let in under the old rule may no longer be: the page was disabled, got a new
 * password, or left PUBLIC. Its open streams then end (after the snapshot carries the new rule, so
 * a reconnect is judged by it), and its subscribers' deliveries stop (core/alerting/subscriberDispatch.ts).
 */
function accessNarrowed(before: StatusPageItem, after: StatusPageItem): boolean {
  if (after.enabled && after.visibility === 'PUBLIC') return false;
  return before.enabled !== after.enabled || before.visibility !== after.visibility || before.passwordVersion !== after.passwordVersion;
}

/** Deletes the page with its components, announcements and snapshot, and frees its slug and domain. */
export async function deleteStatusPage(ctx: Ctx, statusPageId: number): Promise<void> {
  const { deps } = ctx;
  const page = await loadStatusPage(ctx, statusPageId, manageRole(ctx.actor));
  const components = await readComponents(deps, statusPageId);
  await untilProcessed(
    components.map((c) => ({ statusPageId, componentId: c.componentId })),
    async (keys) => (await deps.store.entities.statusComponent.delete(keys).go()).unprocessed,
    'status component deletes',
  );
  await deletePageAnnouncements(deps, statusPageId);
  await deletePageSubscribers(deps, statusPageId);
  await deps.store.entities.statusPage.delete({ statusPageId }).go();
  await deps.store.entities.statusPageSnapshot.delete({ statusPageId }).go();
  forgetPage(deps.store, statusPageId);
  await releaseLock(deps.store, SLUG_SCOPE, page.slug, String(statusPageId));
  if (page.customDomain) await releaseLock(deps.store, DOMAIN_SCOPE, page.customDomain, String(statusPageId));
  await deps.broadcaster.closePageStreams(statusPageId);
}
