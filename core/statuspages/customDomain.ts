import type { Config } from '../config.js';
import type { Ctx } from '../context.js';
import type { Deps } from '../deps.js';
import { randomToken } from '../auth/secrets.js';
import { badRequest, conflict, HttpError } from '../http/errors.js';
import { isConditionalFailure } from '../store/conditional.js';
import type { StatusPageItem } from '../store/entities/statusPage.js';
import { acquireLock, releaseLock } from '../store/locks.js';
import { sameHost } from './domain.js';
import { loadStatusPage } from './load.js';
import { refreshSnapshot } from './store/snapshot.js';

/**
 * Custom domains are owned before they are claimed (docs/guide/status-pages.md "Custom domain"). Saving a domain
 * only records a claim with a per-page TXT token; the install-wide lock (which is also the `Host`
 * lookup) is taken by verification, which needs `_vigil-challenge.<domain>` TXT
 * `vigil-verify=<token>` and the CNAME. A claim nobody verifies lapses after 7 days, and the sweep
 * re-checks a verified domain daily and detaches it when its records are gone, so a dangling
 * CNAME left behind by a former owner cannot be taken over by whoever saves the name next.
 */
export const DOMAIN_SCOPE = 'status-page-domain';
export const DOMAIN_DUE_SHARD = 'status-page-domain#0';
export const CLAIM_LAPSE_MS = 7 * 24 * 3600_000;
export const RECHECK_MS = 24 * 3600_000;
/** A resolver that failed (timeout, SERVFAIL) proves nothing: look again sooner, detach nothing. */
const RETRY_MS = 3600_000;
const TXT_PREFIX = 'vigil-verify=';

/** DNS lookups for custom domains: node:dns/promises in production, a fake in tests (never real DNS). */
export type DomainResolver = { resolveTxt(hostname: string): Promise<string[][]>; resolveCname(hostname: string): Promise<string[]> };

const systemResolver: DomainResolver = {
  resolveTxt: async (hostname) => (await import('node:dns/promises')).resolveTxt(hostname),
  resolveCname: async (hostname) => (await import('node:dns/promises')).resolveCname(hostname),
};

export const txtNameOf = (domain: string): string => `_vigil-challenge.${domain}`;
export const cnameTargetOf = (config: Pick<Config, 'cnameTarget' | 'publicUrl'>): string => config.cnameTarget ?? new URL(config.publicUrl).hostname;

export type DomainVerification = {
  txtName: string;
  txtValue: string | null;
  cnameTarget: string;
  status: 'PENDING' | 'VERIFIED';
  checkedAt: string | null;
  /** When an unverified claim lapses (null once verified). */
  expiresAt: string | null;
};

export function verificationView(config: Pick<Config, 'cnameTarget' | 'publicUrl'>, p: StatusPageItem): DomainVerification | null {
  if (!p.customDomain) return null;
  const verified = p.customDomainVerifiedAt !== undefined;
  return {
    txtName: txtNameOf(p.customDomain),
    txtValue: p.customDomainToken ? `${TXT_PREFIX}${p.customDomainToken}` : null,
    cnameTarget: cnameTargetOf(config),
    status: verified ? 'VERIFIED' : 'PENDING',
    checkedAt: p.customDomainCheckedAt ?? null,
    expiresAt: !verified && p.customDomainClaimedAt ? new Date(Date.parse(p.customDomainClaimedAt) + CLAIM_LAPSE_MS).toISOString() : null,
  };
}

/** The fields a newly saved domain starts with: a fresh token and a 7-day claim, due for its lapse. */
export function newClaim(now: Date): Pick<StatusPageItem, 'customDomainToken' | 'customDomainClaimedAt' | 'domainDueShard' | 'domainDueAt'> {
  return {
    customDomainToken: randomToken(24),
    customDomainClaimedAt: now.toISOString(),
    domainDueShard: DOMAIN_DUE_SHARD,
    domainDueAt: new Date(now.getTime() + CLAIM_LAPSE_MS).toISOString(),
  };
}

/** Everything a domain carries besides its name: removed with it. */
export const CLAIM_FIELDS = ['customDomainVerifiedAt', 'customDomainToken', 'customDomainClaimedAt', 'customDomainCheckedAt', 'domainDueShard', 'domainDueAt'] as const;

type Lookup = { records: string[] } | { unavailable: true };
/** No such name or no such record is an answer (absent); anything else is a resolver failure. */
const ABSENT = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

async function lookup(run: () => Promise<string[]>): Promise<Lookup> {
  try {
    return { records: await run() };
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    return typeof code === 'string' && ABSENT.has(code) ? { records: [] } : { unavailable: true };
  }
}

type Records = { unavailable: boolean; txtFound: string[]; cnameFound: string[]; txtOk: boolean; cnameOk: boolean };

async function readRecords(deps: Deps, domain: string, token: string | undefined): Promise<Records> {
  const resolver = deps.domainResolver ?? systemResolver;
  const [txt, cname] = await Promise.all([
    // A TXT record may come in several character-strings: they are one value joined.
    lookup(async () => (await resolver.resolveTxt(txtNameOf(domain))).map((chunks) => chunks.join(''))),
    lookup(() => resolver.resolveCname(domain)),
  ]);
  const txtFound = 'records' in txt ? txt.records : [];
  const cnameFound = 'records' in cname ? cname.records : [];
  const target = cnameTargetOf(deps.config);
  return {
    unavailable: 'unavailable' in txt || 'unavailable' in cname,
    txtFound,
    cnameFound,
    txtOk: token !== undefined && txtFound.some((value) => value.trim() === `${TXT_PREFIX}${token}`),
    cnameOk: cnameFound.some((name) => sameHost(name, target)),
  };
}

/** A domain lock's owner holds it while that page still has the domain, verified. */
const holdsVerified = (deps: Deps, domain: string) => async (ownerId: string) => {
  const page = (await deps.store.entities.statusPage.get({ statusPageId: Number(ownerId) }).go({ consistent: true })).data;
  return page !== null && page.customDomain === domain && page.customDomainVerifiedAt !== undefined;
};

export type VerifyResult = { verified: true; expected: string; found: string[]; customDomainVerification: DomainVerification };

/** `POST /status-pages/:id/verify-domain`: both records present -> the lock, verified, served; else 422 saying what is missing. */
export async function verifyDomain(ctx: Ctx, statusPageId: number): Promise<VerifyResult> {
  const { deps } = ctx;
  const page = await loadStatusPage(ctx, statusPageId, 'ADMIN');
  const domain = page.customDomain;
  if (!domain) throw badRequest('The page has no custom domain', [{ path: 'customDomain', message: 'Not set' }]);
  // A domain saved before TXT tokens existed gets its token (and its 7 days) now; verification waits for it.
  if (page.customDomainToken === undefined) Object.assign(page, await startClaim(deps, statusPageId, domain));
  const records = await readRecords(deps, domain, page.customDomainToken);
  const target = cnameTargetOf(deps.config);
  if (!records.txtOk || !records.cnameOk) {
    const details = [];
    if (!records.txtOk)
      details.push({
        path: 'txt',
        message: `Expected a TXT record ${txtNameOf(domain)} with the value ${page.customDomainToken ? `${TXT_PREFIX}${page.customDomainToken}` : '(see customDomainVerification.txtValue)'}; found ${records.txtFound.length} other value(s)`,
      });
    if (!records.cnameOk) details.push({ path: 'cname', message: `Expected a CNAME record ${domain} pointing at ${target}; found ${records.cnameFound.join(', ') || 'none'}` });
    const why = records.unavailable ? 'DNS lookup failed; try again shortly' : 'the DNS records are not in place yet';
    throw new HttpError('DOMAIN_NOT_VERIFIED', `Domain ${domain} is not verified: ${why}`, details);
  }
  const now = deps.clock.now();
  if (!(await acquireLock(deps.store, DOMAIN_SCOPE, domain, String(statusPageId), now, holdsVerified(deps, domain)))) {
    throw conflict(`Domain ${domain} is already verified by another status page`, 'DOMAIN_TAKEN');
  }
  let written: StatusPageItem;
  try {
    written = (
      await deps.store.entities.statusPage
        .patch({ statusPageId })
        .set({
          customDomainVerifiedAt: page.customDomainVerifiedAt ?? now.toISOString(),
          customDomainCheckedAt: now.toISOString(),
          domainDueShard: DOMAIN_DUE_SHARD,
          domainDueAt: new Date(now.getTime() + RECHECK_MS).toISOString(),
        })
        .remove(['customDomainClaimedAt'])
        // A revision bump, so an update that read the page before this write retries on the new state.
        .add({ revision: 1 })
        .where((attr, op) => op.eq(attr.customDomain, domain))
        .go({ response: 'all_new' })
    ).data as StatusPageItem;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    await releaseLock(deps.store, DOMAIN_SCOPE, domain, String(statusPageId));
    throw conflict('The page’s domain changed meanwhile; verify again');
  }
  await refreshSnapshot(deps, statusPageId);
  return { verified: true, expected: target, found: records.cnameFound, customDomainVerification: verificationView(deps.config, written) as DomainVerification };
}

async function startClaim(deps: Deps, statusPageId: number, domain: string): Promise<StatusPageItem> {
  try {
    const written = await deps.store.entities.statusPage
      .patch({ statusPageId })
      .set(newClaim(deps.clock.now()))
      .add({ revision: 1 })
      .where((attr, op) => `${op.eq(attr.customDomain, domain)} AND ${op.notExists(attr.customDomainToken)}`)
      .go({ response: 'all_new' });
    return written.data as StatusPageItem;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    throw conflict('The page’s domain changed meanwhile; verify again');
  }
}

/** Sweep step: claims due to lapse and verified domains due for their re-check, O(due) through the sparse index. */
export async function processCustomDomains(deps: Deps, now: Date): Promise<{ lapsed: number; rechecked: number; detached: number }> {
  const report = { lapsed: 0, rechecked: 0, detached: 0 };
  const due = await deps.store.entities.statusPage.query.byDomainDue({ domainDueShard: DOMAIN_DUE_SHARD }).lte({ domainDueAt: now.toISOString() }).go({ pages: 'all' });
  for (const page of due.data) {
    const outcome = await settleDomain(deps, page, now);
    if (outcome) report[outcome]++;
  }
  return report;
}

async function settleDomain(deps: Deps, page: StatusPageItem, now: Date): Promise<'lapsed' | 'rechecked' | 'detached' | null> {
  const { statusPageId, customDomain: domain } = page;
  const write = deps.store.entities.statusPage.patch({ statusPageId });
  // Every write is conditional on the due entry it came from: a page changed since is left to its own new entry.
  const dueAt = page.domainDueAt ?? '';
  const both = (a: string, b: string) => `${a} AND ${b}`;
  try {
    if (!domain) {
      await write
        .remove(['domainDueShard', 'domainDueAt'])
        .where((attr, op) => both(op.eq(attr.domainDueAt, dueAt), op.notExists(attr.customDomain)))
        .go();
      return null;
    }
    if (page.customDomainVerifiedAt === undefined) {
      await write
        .remove(['customDomain', ...CLAIM_FIELDS])
        .add({ revision: 1 })
        .set({ updatedAt: now.toISOString() })
        .where((attr, op) => both(op.eq(attr.domainDueAt, dueAt), op.eq(attr.customDomain, domain)))
        .go();
      await releaseLock(deps.store, DOMAIN_SCOPE, domain, String(statusPageId));
      await refreshSnapshot(deps, statusPageId);
      return 'lapsed';
    }
    const records = await readRecords(deps, domain, page.customDomainToken);
    if (records.unavailable) {
      await write
        .set({ domainDueShard: DOMAIN_DUE_SHARD, domainDueAt: new Date(now.getTime() + RETRY_MS).toISOString() })
        .where((attr, op) => both(op.eq(attr.domainDueAt, dueAt), op.eq(attr.customDomain, domain)))
        .go();
      return null;
    }
    if (records.txtOk && records.cnameOk) {
      await write
        .set({ customDomainCheckedAt: now.toISOString(), domainDueShard: DOMAIN_DUE_SHARD, domainDueAt: new Date(now.getTime() + RECHECK_MS).toISOString() })
        .where((attr, op) => both(op.eq(attr.domainDueAt, dueAt), op.eq(attr.customDomain, domain)))
        .go();
      return 'rechecked';
    }
    // Records gone: not served from now on; the claim stays (7 days) so its owner can put them back and verify again.
    await write
      .remove(['customDomainVerifiedAt'])
      .set({
        customDomainCheckedAt: now.toISOString(),
        customDomainClaimedAt: now.toISOString(),
        domainDueShard: DOMAIN_DUE_SHARD,
        domainDueAt: new Date(now.getTime() + CLAIM_LAPSE_MS).toISOString(),
      })
      .add({ revision: 1 })
      .where((attr, op) => both(op.eq(attr.domainDueAt, dueAt), op.eq(attr.customDomain, domain)))
      .go();
    await releaseLock(deps.store, DOMAIN_SCOPE, domain, String(statusPageId));
    await refreshSnapshot(deps, statusPageId);
    return 'detached';
  } catch (err) {
    if (isConditionalFailure(err)) return null;
    throw err;
  }
}
