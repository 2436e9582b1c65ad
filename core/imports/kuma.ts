import { isImportableToken } from '../checks/lifecycle.js';
import { OUTBOUND_METHODS } from '../checks/outboundSchema.js';
import { pauseCheck } from '../checks/pause.js';
import { listWorkspaceChecks } from '../checks/repository.js';
import { CheckV1Create, type JobCreateInput } from '../checks/schema.js';
import { createHeartbeatJob, createV1Check, parseHeartbeatJob } from '../checks/v1.js';
import type { Ctx } from '../context.js';
import { badRequest } from '../http/errors.js';
import { zodDetails } from '../http/router.js';
import type { CheckItem } from '../store/entities/check.js';
import type { KumaData, KumaMonitor, UptimeKumaExport } from './kumaFormat.js';
import { importKumaStatusPages } from './kumaPages.js';
import { importKumaMaintenance } from './kumaSites.js';
import { readKumaDatabase } from './kumaSqlite.js';
import type { ImportReport } from './report.js';
import { emptyReport, orSkip, tokenOwner } from './target.js';

type Target = { workspaceId: number; projectId: number | undefined };
type Skipped = ImportReport['skipped'];
const MAX_DESCRIPTION = 1_000;
const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/**
 * A push monitor as a heartbeat job: Kuma expects a push every `interval` seconds and, with
 * retries, waits `retryInterval` x `maxretries` more before DOWN; that wait is the job's grace
 * (at least 60 s, as Kuma's own check runs about once a minute).
 */
function pushJob(m: KumaMonitor, projectId: number): JobCreateInput {
  const wait = (m.retryInterval ?? 0) * (m.maxretries ?? 0);
  return { name: m.name.trim() || `Push monitor ${m.id}`, projectId, intervalSeconds: clamp(m.interval, 10, 604_800), graceSeconds: clamp(wait, 60, 86_400) };
}

/** The one accepted range Vigil checks: Kuma's list (`["200-299"]`, `["200", "301"]`) spanned, anything wider noted. */
function statusRange(codes: string[] | undefined): { min: number; max: number; exact: boolean } {
  const bounds = (codes ?? ['200-299']).flatMap((code) => code.split('-').map((part) => Number(part.trim().replace(/x+$/i, (x) => '0'.repeat(x.length)))));
  const valid = bounds.filter((n) => Number.isInteger(n) && n >= 100 && n <= 599);
  if (valid.length === 0) return { min: 200, max: 299, exact: false };
  return { min: Math.min(...valid), max: Math.max(...valid), exact: (codes ?? []).length <= 1 };
}

/** An HTTP monitor as an outbound HTTP check, with what does not carry over noted. */
function httpCheck(m: KumaMonitor, projectId: number, notes: Skipped) {
  const name = m.name.trim() || `HTTP monitor ${m.id}`;
  const note = (reason: string) => notes.push({ kind: 'setting', name, reason });
  const method = (m.method ?? 'GET').toUpperCase();
  if (!(OUTBOUND_METHODS as readonly string[]).includes(method)) throw badRequest(`Vigil probes with ${OUTBOUND_METHODS.join(', ')}, not ${method}`);
  const range = statusRange(m.accepted_statuscodes);
  if (!range.exact) note(`accepted status codes ${JSON.stringify(m.accepted_statuscodes)}: Vigil checks one range, ${range.min}-${range.max}`);
  const timeoutMs = clamp(Math.round((m.timeout || 8) * 1000), 1000, 15_000);
  if (m.timeout && timeoutMs !== Math.round(m.timeout * 1000)) note(`timeout ${m.timeout}s: Vigil waits ${timeoutMs / 1000}s`);
  const redirects = m.maxredirects ?? 10;
  if (redirects > 3) note(`maxredirects ${redirects}: Vigil follows at most 3`);
  const failAfter = clamp((m.maxretries ?? 0) + 1, 1, 10);
  if ((m.maxretries ?? 0) + 1 > 10) note(`maxretries ${m.maxretries}: Vigil turns DOWN after at most 10 failures in a row`);
  if (m.keyword) note('keyword: Vigil checks the status code, not the body');
  if (m.ignoreTls) note('ignoreTls: Vigil always verifies certificates');
  if (m.body) note('request body: Vigil probes send none');
  if (m.basic_auth_user) note('basic auth: credentials are not imported; add an Authorization header in Vigil');
  const parsed = CheckV1Create.safeParse({
    name,
    projectId,
    intervalSeconds: m.interval,
    config: {
      url: m.url ?? '',
      method,
      timeoutMs,
      expectedStatusMin: range.min,
      expectedStatusMax: range.max,
      followRedirects: redirects > 0,
      maxRedirects: Math.min(redirects, 3),
      failAfterConsecutive: failAfter,
    },
  });
  if (!parsed.success)
    throw badRequest(
      `Not importable: ${zodDetails(parsed.error)
        .map((d) => `${d.path}: ${d.message}`)
        .join('; ')}`,
      zodDetails(parsed.error),
    );
  if (m.headers) {
    try {
      parsed.data.config.customHeaders = JSON.parse(m.headers) as Record<string, string>;
      const withHeaders = CheckV1Create.safeParse(parsed.data);
      if (!withHeaders.success) throw new Error(withHeaders.error.message);
    } catch {
      delete parsed.data.config.customHeaders;
      note('request headers: not a valid header set for Vigil; not imported');
    }
  }
  return parsed.data;
}

const unmapped: Record<string, string> = {
  group: 'groups are status-page sections in Vigil (see the status pages)',
  keyword: 'keyword monitors check the body: Vigil checks HTTP status codes',
  'json-query': 'JSON query monitors check the body: Vigil checks HTTP status codes',
};

/**
 * Imports Uptime Kuma: push monitors become heartbeat jobs that keep their push token (so
 * `/api/push/<token>` lands on them), HTTP monitors become HTTP checks, maintenance and status
 * pages follow (kumaSites.ts, kumaPages.ts). Identity: the push token; an HTTP check by its name and URL.
 */
export async function importUptimeKuma(ctx: Ctx, target: Target, payload: UptimeKumaExport, dryRun: boolean): Promise<ImportReport> {
  const data: KumaData = 'database' in payload ? await readKumaDatabase(Buffer.from(payload.database, 'base64')) : payload;
  const report = emptyReport('uptime-kuma', dryRun);
  const existing = await listWorkspaceChecks(ctx.deps, target.workspaceId);
  const checkOf = new Map<number, CheckItem | 'dry'>();
  for (const m of data.monitorList) {
    const kind = m.type === 'push' ? 'job' : 'check';
    const item = { kind, name: m.name.trim() || `${m.type} monitor ${m.id}` };
    if (m.type !== 'push' && m.type !== 'http') {
      report.skipped.push({ kind: 'monitor', name: item.name, reason: unmapped[m.type] ?? `Vigil has no ${m.type} monitors (it probes HTTP and takes pings)` });
      continue;
    }
    if (m.upsideDown) {
      report.skipped.push({ kind: 'monitor', name: item.name, reason: 'upside-down mode (up when failing) has no Vigil equivalent' });
      continue;
    }
    const notes: Skipped = [];
    if (m.type === 'push') {
      const token = m.pushToken ?? '';
      if (!isImportableToken(token)) {
        report.skipped.push({ ...item, reason: 'its push token is missing or not 10-128 letters, digits, - or _' });
        continue;
      }
      const owner = await tokenOwner(ctx, target.workspaceId, token);
      if (owner === 'taken') {
        report.skipped.push({ ...item, reason: 'its push token is already the ping token of a check outside this workspace' });
        continue;
      }
      if (owner) {
        checkOf.set(m.id, owner.mine);
        report.unchanged.push({ ...item, id: owner.mine.checkId });
        continue;
      }
    } else {
      const same = existing.find((c) => c.checkMode === 'OUTBOUND' && c.name === item.name && (c.outbound as { url?: string } | undefined)?.url === m.url);
      if (same) {
        checkOf.set(m.id, same);
        report.unchanged.push({ ...item, id: same.checkId });
        continue;
      }
    }
    if (target.projectId === undefined) {
      report.skipped.push({ ...item, reason: 'the workspace has no project yet' });
      continue;
    }
    const projectId = target.projectId;
    await orSkip(report, item, async () => {
      const imported = {
        description: m.description ? m.description.slice(0, MAX_DESCRIPTION) : undefined,
        tags: (m.tags ?? []).map((t) => (t.value ? `${t.name}:${t.value}` : t.name)).slice(0, 20),
      };
      let created: CheckItem | undefined;
      if (m.type === 'push') {
        const body = pushJob(m, projectId);
        parseHeartbeatJob(body, ctx.deps.clock.now());
        if (!dryRun) created = await createHeartbeatJob(ctx, body, { ...imported, token: m.pushToken ?? undefined });
      } else {
        const body = httpCheck(m, projectId, notes);
        if (!dryRun) created = await createV1Check(ctx, body, imported);
      }
      if (created && m.active === false) created = await pauseCheck(ctx.deps, created, { cause: 'USER', now: ctx.deps.clock.now() });
      checkOf.set(m.id, created ?? 'dry');
      report.created.push(created ? { ...item, id: created.checkId } : item);
      if (Object.keys(m.notificationIDList ?? {}).length > 0)
        notes.push({ kind: 'notification', name: item.name, reason: 'its notifications are not imported (their secrets stay in Kuma): add alert channels in Vigil' });
      report.skipped.push(...notes);
    });
  }
  for (const n of data.notificationList ?? [])
    report.skipped.push({ kind: 'notification', name: n.name ?? `notification ${n.id}`, reason: 'notification providers are not imported: add alert channels in Vigil' });
  await importKumaMaintenance(ctx, target, data.maintenanceList ?? [], dryRun, report);
  await importKumaStatusPages(ctx, target.workspaceId, data, checkOf, dryRun, report);
  return report;
}
