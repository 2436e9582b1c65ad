import { createRoute, z } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import type { Ctx } from '../context.js';
import { apiKeySecurity, jsonBody, jsonResponse } from '../http/openapi.js';
import { createRouter } from '../http/router.js';
import { importGrafanaOncall } from './grafanaOncall.js';
import { OncallExport } from './grafanaOncallPayload.js';
import { HealthchecksExport, importHealthchecks } from './healthchecks.js';
import { importUptimeKuma } from './kuma.js';
import { UptimeKumaExport } from './kumaFormat.js';
import type { ImportReport } from './report.js';
import { importTarget } from './target.js';

const ReportItem = z.object({ kind: z.string(), name: z.string(), id: z.number().int().optional() });

export const ImportReportSchema = z
  .object({
    source: z.enum(['healthchecks', 'uptime-kuma', 'grafana-oncall']),
    dryRun: z.boolean(),
    created: z.array(ReportItem).openapi({ description: 'Made by this run (a dry run: what it would make, without ids)' }),
    unchanged: z.array(ReportItem).openapi({ description: 'Already here from an earlier run of the same import' }),
    skipped: z.array(z.object({ kind: z.string(), name: z.string(), reason: z.string() })).openapi({ description: 'Whatever does not map, or only partly, and why' }),
  })
  .openapi('ImportReport') satisfies z.ZodType<ImportReport>;

export const ImportQuery = z.object({
  dryRun: z.enum(['true', 'false']).default('false').openapi({ description: '`true` answers what would be created and changes nothing' }),
  projectId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().openapi({ description: 'Project the checks land in; default: the workspace’s first project' }),
});

type Target = Awaited<ReturnType<typeof importTarget>>;

/**
 * `POST /v1/import/<source>`: one route per source, each with its own documented body, all
 * answering the same report. A new source is one more `importRoute` line.
 */
function importRoute<S extends z.ZodType>(
  r: ReturnType<typeof createRouter>,
  source: ImportReport['source'],
  schema: S,
  run: (ctx: Ctx, target: Target, payload: z.output<S>, dryRun: boolean) => Promise<ImportReport>,
) {
  // The body's type is the source's; the route itself is typed once, over any JSON body.
  const body: z.ZodType = schema;
  r.openapi(
    createRoute({
      method: 'post',
      path: `/import/${source}` as string,
      tags: ['v1', 'import'],
      security: apiKeySecurity,
      summary: `Import from ${source} (docs/guide/importing.md); a second run of the same file changes nothing`,
      request: { query: ImportQuery, body: jsonBody(body) },
      responses: { 200: jsonResponse(ImportReportSchema, 'What was (or, dry, would be) created, what was already there, and what was skipped and why') },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const { dryRun, projectId } = c.req.valid('query');
      const dry = dryRun === 'true';
      const target = await importTarget(ctx, projectId, dry);
      return c.json(await run(ctx, target, c.req.valid('json') as z.output<S>, dry), 200);
    },
  );
}

/** Mounted by v1Routes (API key auth). */
export function v1ImportRoutes() {
  const r = createRouter();
  importRoute(r, 'healthchecks', HealthchecksExport, importHealthchecks);
  importRoute(r, 'uptime-kuma', UptimeKumaExport, importUptimeKuma);
  // On-call items belong to the workspace, not to a project: `?projectId=` plays no part.
  importRoute(r, 'grafana-oncall', OncallExport, (ctx, target, payload, dryRun) => importGrafanaOncall(ctx, target.workspaceId, payload, { dryRun }));
  return r;
}
