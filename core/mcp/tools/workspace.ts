import { z } from '@hono/zod-openapi';
import type { Ctx } from '../../context.js';
import { listDashboardChecks } from '../../checks/dashboard.js';
import { listDeployments } from '../../deployments/deployments.js';
import { envelope, MAX_LIMIT } from '../../http/pagination.js';
import { listIncidents } from '../../incidents/incidents.js';
import { pageProjects, toProject } from '../../identity/projects.js';
import { getWorkspace } from '../../identity/workspaces.js';
import { listMaintenanceWindows } from '../../maintenance/windows.js';
import { CHECK_STATUSES, SEVERITIES } from '../../store/entities/check.js';
import { keyOf, keyWorkspace } from '../key.js';
import { PageArgs, PageInfo } from '../schema.js';
import { defineTool, type Tool } from '../tool.js';
import { listText, pageOf } from '../present.js';

const whoami = defineTool({
  name: 'whoami',
  area: 'workspace',
  title: 'Who am I',
  description: 'The API key this server acts as (name, permission) and its workspace. Start here.',
  input: z.object({}),
  output: z.object({
    workspace: z.object({ id: z.number().int(), name: z.string(), plan: z.string() }),
    apiKey: z.object({ id: z.number().int(), name: z.string(), permission: z.enum(['read_only', 'read_write']) }),
  }),
  effect: 'read',
  async run(ctx) {
    const key = keyOf(ctx);
    const workspace = await getWorkspace(ctx, key.workspaceId);
    const data = {
      workspace: { id: workspace.id, name: workspace.name, plan: workspace.plan },
      apiKey: { id: key.apiKeyId, name: key.name, permission: key.permission },
    };
    return { data, text: `API key "${key.name}" (${key.permission}) of workspace #${workspace.id} "${workspace.name}" (${workspace.plan})` };
  },
});

const Project = z.object({ id: z.number().int(), name: z.string(), description: z.string().nullable() });

const listProjectsTool = defineTool({
  name: 'list_projects',
  area: 'projects',
  title: 'List projects',
  description: 'Projects of the workspace in id order. Checks, deployments and maintenance windows belong to projects. Paginated.',
  input: z.object(PageArgs),
  output: z.object({ items: z.array(Project), ...PageInfo }),
  effect: 'read',
  async run(ctx, { page, limit }) {
    const found = await pageProjects(ctx, keyWorkspace(ctx), page, limit);
    const projects = found.items.map(toProject).map((p) => ({ id: p.id, name: p.name, description: p.description }));
    const data = pageOf(envelope(projects, found.total, page, limit));
    return { data, text: listText('projects', data, (p) => `#${p.id} ${p.name}${p.description ? `: ${p.description}` : ''}`) };
  },
});

// Overview counts read every open incident; past this many the count says "at least".
const OPEN_INCIDENT_PAGES = 10;

async function openIncidentsBySeverity(ctx: Ctx): Promise<{ bySeverity: Record<string, number>; total: number }> {
  const bySeverity: Record<string, number> = Object.fromEntries(SEVERITIES.map((s) => [s, 0]));
  let total = 0;
  for (let page = 1; page <= OPEN_INCIDENT_PAGES; page++) {
    const found = await listIncidents(ctx, { workspaceId: keyWorkspace(ctx), state: 'ACTIVE', page, limit: MAX_LIMIT });
    total = found.total;
    for (const incident of found.items) bySeverity[incident.severity] = (bySeverity[incident.severity] ?? 0) + 1;
    if (page >= found.pageCount) break;
  }
  return { bySeverity, total };
}

const Counts = (keys: readonly string[]) => z.object(Object.fromEntries(keys.map((k) => [k, z.number().int()])));

const workspaceOverview = defineTool({
  name: 'workspace_overview',
  area: 'workspace',
  title: 'Workspace overview',
  description: 'One look at the workspace: checks counted by status, open incidents by severity, and the deployment and maintenance windows active now.',
  input: z.object({}),
  output: z.object({
    checks: z.object({ total: z.number().int(), byStatus: Counts(CHECK_STATUSES) }),
    openIncidents: z.object({ total: z.number().int(), bySeverity: Counts(SEVERITIES) }),
    activeDeployments: z.array(z.object({ id: z.number().int(), projectId: z.number().int(), name: z.string().nullable() })),
    activeMaintenanceWindows: z.array(z.object({ id: z.number().int(), name: z.string(), projectIds: z.array(z.number().int()) })),
  }),
  effect: 'read',
  async run(ctx) {
    const workspaceId = keyWorkspace(ctx);
    const [checks, incidents, deployments, windows] = await Promise.all([
      listDashboardChecks(ctx, { page: 1, limit: Number.MAX_SAFE_INTEGER }),
      openIncidentsBySeverity(ctx),
      listDeployments(ctx, workspaceId, { status: 'ACTIVE' }),
      listMaintenanceWindows(ctx, workspaceId, { state: 'ACTIVE' }),
    ]);
    const byStatus: Record<string, number> = Object.fromEntries(CHECK_STATUSES.map((s) => [s, 0]));
    for (const check of checks.items) byStatus[check.status] = (byStatus[check.status] ?? 0) + 1;
    const data = {
      checks: { total: checks.total, byStatus },
      openIncidents: { total: incidents.total, bySeverity: incidents.bySeverity },
      activeDeployments: deployments.map((d) => ({ id: d.deploymentId, projectId: d.projectId, name: d.name ?? d.version ?? null })),
      activeMaintenanceWindows: windows.map((w) => ({ id: w.maintenanceWindowId, name: w.name, projectIds: w.projectIds })),
    };
    const nonZero = (counts: Record<string, number>) =>
      Object.entries(counts)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ') || 'none';
    const text = [
      `${checks.total} checks: ${nonZero(byStatus)}`,
      `${incidents.total} open incidents: ${nonZero(incidents.bySeverity)}`,
      `active deployments: ${data.activeDeployments.map((d) => `#${d.id} ${d.name ?? ''} (project ${d.projectId})`).join(', ') || 'none'}`,
      `active maintenance windows: ${data.activeMaintenanceWindows.map((w) => `#${w.id} ${w.name}`).join(', ') || 'none'}`,
    ].join('\n');
    return { data, text };
  },
});

export const workspaceTools: Tool[] = [whoami, listProjectsTool, workspaceOverview];
