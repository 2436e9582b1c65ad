import { z } from '@hono/zod-openapi';
import { pauseCheck } from '../checks/pause.js';
import type { JobCreateInput } from '../checks/schema.js';
import { createHeartbeatJob, parseHeartbeatJob } from '../checks/v1.js';
import { findCheckBySlug } from '../checks/repository.js';
import type { Ctx } from '../context.js';
import type { ImportReport } from './report.js';
import { emptyReport, freeSlug, orSkip, tokenOwner } from './target.js';

/*
 * Healthchecks' Management API v3 (https://healthchecks.io/docs/api/): the body of
 * `GET /api/v3/checks/`, optionally with the `channels` of `GET /api/v3/channels/` beside it.
 * Fields Vigil has no use for are accepted and ignored (later Healthchecks versions add more).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** More than any Healthchecks project holds on its paid plans (1,000 checks); the body limit (1 MiB) bounds it first. */
export const MAX_IMPORT_ITEMS = 5_000;
const MAX_DESCRIPTION = 1_000;
const MAX_TAGS = 20;

const HealthchecksCheck = z.object({
  name: z.string().max(1_000),
  slug: z.string().max(1_000).optional(),
  tags: z.string().max(10_000).optional().openapi({ description: 'Space-separated' }),
  desc: z.string().max(100_000).optional(),
  grace: z.number().int().min(1).openapi({ description: 'Seconds' }),
  timeout: z.number().int().min(1).optional().openapi({ description: 'Seconds between pings (simple checks)' }),
  schedule: z.string().max(1_000).optional().openapi({ description: 'Cron expression (cron checks)' }),
  tz: z.string().max(100).optional(),
  status: z.string().max(20).optional().openapi({ description: '`paused` imports the check paused' }),
  manual_resume: z.boolean().optional(),
  methods: z.string().max(10).optional(),
  uuid: z.string().regex(UUID, 'must be a UUID').optional().openapi({ description: 'Kept as the check’s ping token (absent in read-only exports)' }),
  unique_key: z.string().max(100).optional(),
  ping_url: z.string().max(2_048).optional(),
  channels: z.string().max(100_000).optional().openapi({ description: 'Comma-separated channel UUIDs' }),
  subject: z.string().max(1_000).optional(),
  subject_fail: z.string().max(1_000).optional(),
  start_kw: z.string().max(1_000).optional(),
  success_kw: z.string().max(1_000).optional(),
  failure_kw: z.string().max(1_000).optional(),
});
type HealthchecksCheck = z.output<typeof HealthchecksCheck>;

const HealthchecksChannel = z.object({ id: z.string().max(100), name: z.string().max(1_000), kind: z.string().max(100) });

export const HealthchecksExport = z
  .object({
    checks: z.array(HealthchecksCheck).max(MAX_IMPORT_ITEMS),
    channels: z.array(HealthchecksChannel).max(MAX_IMPORT_ITEMS).optional(),
  })
  .openapi('HealthchecksExport', { description: 'The JSON of Healthchecks’ `GET /api/v3/checks/` (with `channels` from `GET /api/v3/channels/` if wanted)' });

const tagsOf = (tags: string | undefined): string[] => [...new Set((tags ?? '').split(/\s+/).filter((tag) => tag.length > 0 && tag.length <= 64))].slice(0, MAX_TAGS);

const nameOf = (check: HealthchecksCheck): string => check.name.trim() || check.slug || check.uuid || 'Unnamed check';

function jobInput(check: HealthchecksCheck, projectId: number, slug: string | null): JobCreateInput {
  const timing = check.schedule !== undefined ? { schedule: check.schedule, timezone: check.tz ?? 'UTC' } : { intervalSeconds: check.timeout ?? null };
  return { name: nameOf(check), projectId, slug, graceSeconds: check.grace, ...timing };
}

/** What the check carries that Vigil does not do, each one listed (never silently dropped). */
function unmapped(check: HealthchecksCheck, name: string): ImportReport['skipped'] {
  const notes: ImportReport['skipped'] = [];
  const note = (kind: string, reason: string) => notes.push({ kind, name, reason });
  if (check.methods === 'POST') note('setting', 'Healthchecks accepted only POST pings; Vigil accepts HEAD, GET and POST');
  if (check.manual_resume) note('setting', 'manual_resume: Vigil resumes a check on its next ping');
  if ([check.subject, check.subject_fail, check.start_kw, check.success_kw, check.failure_kw].some((kw) => kw)) note('setting', 'e-mail ping keywords: Vigil has no e-mail pings');
  if (check.channels) note('channel', 'its notification channels are not imported (the export carries no secrets): add alert channels in Vigil');
  if ((check.desc?.length ?? 0) > MAX_DESCRIPTION) note('description', `cut to its first ${MAX_DESCRIPTION} characters`);
  return notes;
}

/**
 * Imports Healthchecks checks as heartbeat jobs. Identity is the check's UUID, which becomes the
 * job's ping token (so `/ping/<uuid>` lands on it); an export without UUIDs (a read-only key's)
 * is matched by slug and gets new tokens.
 */
export async function importHealthchecks(
  ctx: Ctx,
  target: { workspaceId: number; projectId: number | undefined },
  payload: z.output<typeof HealthchecksExport>,
  dryRun: boolean,
): Promise<ImportReport> {
  const report = emptyReport('healthchecks', dryRun);
  const { workspaceId } = target;
  const seenTokens = new Set<string>();
  const claimedSlugs = new Set<string>();
  for (const check of payload.checks) {
    const item = { kind: 'job', name: nameOf(check) };
    const token = check.uuid?.toLowerCase();
    if (token !== undefined) {
      if (seenTokens.has(token)) {
        report.skipped.push({ ...item, reason: `its UUID ${token} appears earlier in the file` });
        continue;
      }
      seenTokens.add(token);
      const owner = await tokenOwner(ctx, workspaceId, token);
      if (owner === 'taken') {
        report.skipped.push({ ...item, reason: 'its UUID is already the ping token of a check outside this workspace' });
        continue;
      }
      if (owner) {
        report.unchanged.push({ ...item, id: owner.mine.checkId });
        continue;
      }
    }
    const sourceSlug = check.slug ? check.slug : null;
    if (token === undefined) {
      const existing = sourceSlug ? await findCheckBySlug(ctx.deps, workspaceId, sourceSlug) : undefined;
      if (existing) {
        report.unchanged.push({ ...item, id: existing.checkId });
        continue;
      }
      if (!sourceSlug) {
        report.skipped.push({ ...item, reason: 'neither a UUID nor a slug identifies it (export with a read-write API key)' });
        continue;
      }
    }
    if (target.projectId === undefined) {
      report.skipped.push({ ...item, reason: 'the workspace has no project yet' });
      continue;
    }
    const slug = sourceSlug && /^[a-z0-9_-]{1,64}$/.test(sourceSlug) && !claimedSlugs.has(sourceSlug) ? await freeSlug(ctx, workspaceId, sourceSlug) : null;
    if (sourceSlug && slug === null)
      report.skipped.push({
        kind: 'slug',
        name: sourceSlug,
        reason: `another check of this workspace has the slug (or it is not a valid Vigil slug): "${item.name}" is imported without it`,
      });
    if (slug) claimedSlugs.add(slug);
    const body = jobInput(check, target.projectId, slug);
    await orSkip(report, item, async () => {
      parseHeartbeatJob(body, ctx.deps.clock.now());
      const notes = unmapped(check, item.name);
      if (token === undefined) notes.push({ ...item, kind: 'ping-url', reason: 'the export has no UUID (a read-only key’s): the job gets a new ping URL' });
      if (dryRun) {
        report.created.push(item);
      } else {
        const description = check.desc ? check.desc.slice(0, MAX_DESCRIPTION) : undefined;
        let job = await createHeartbeatJob(ctx, body, { token, description, tags: tagsOf(check.tags) });
        if (check.status === 'paused') job = await pauseCheck(ctx.deps, job, { cause: 'USER', now: ctx.deps.clock.now() });
        report.created.push({ ...item, id: job.checkId });
      }
      report.skipped.push(...notes);
    });
  }
  for (const channel of payload.channels ?? []) {
    report.skipped.push({
      kind: 'channel',
      name: channel.name || channel.id,
      reason: `${channel.kind} channel: its secrets are not in the export; add it as an alert channel in Vigil`,
    });
  }
  return report;
}
