import { z } from '@hono/zod-openapi';
import { DeploymentCreateV1 } from '../../deployments/schema.js';
import { endDeployment, listDeployments, openDeployment, toDeployment } from '../../deployments/deployments.js';
import { paginate } from '../../http/pagination.js';
import { MaintenanceWindowCreateV1 } from '../../maintenance/schema.js';
import { createMaintenanceWindow, finishMaintenanceWindow, listMaintenanceWindows, toMaintenanceWindow } from '../../maintenance/windows.js';
import { DEPLOYMENT_STATUSES } from '../../store/entities/deployment.js';
import { MAINTENANCE_STATES } from '../../store/entities/maintenanceWindow.js';
import { keyWorkspace } from '../key.js';
import { DeploymentSummary, Id, MaintenanceSummary, PageArgs, PageInfo } from '../schema.js';
import { defineTool, type Tool } from '../tool.js';
import { deploymentSummary, listText, maintenanceSummary, pageOf } from '../present.js';

type Deployment = z.infer<typeof DeploymentSummary>;
type Window = z.infer<typeof MaintenanceSummary>;

const Instant = z.iso.datetime({ offset: true }).describe('ISO 8601 date-time with Z or an offset');

const deploymentLine = (d: Deployment): string =>
  `#${d.id} ${d.status} ${d.name ?? d.version ?? '(unnamed)'} on project ${d.projectId}, started ${d.startedAt}` +
  (d.endedAt ? `, ended ${d.endedAt}` : d.scheduledEndAt ? `, ends by ${d.scheduledEndAt}` : '') +
  (d.autoPause ? ', pauses checks' : '');

const windowLine = (w: Window): string =>
  `#${w.id} ${w.state} "${w.name}" ${w.startAt} - ${w.endAt} on projects ${w.projectIds.join(', ')}` +
  (w.suppressIncidents ? ', no incidents' : '') +
  (w.suppressAlerts ? ', no alerts' : '') +
  (w.recurringCron ? `, repeats ${w.recurringCron}` : '');

const listDeploymentsTool = defineTool({
  name: 'list_deployments',
  area: 'deployments',
  title: 'List deployments',
  description: 'Deployment windows of the workspace, newest first; filter by project, status and time range. Paginated: the answer says how many remain.',
  input: z.object({ projectId: Id.optional(), status: z.enum(DEPLOYMENT_STATUSES).optional(), from: Instant.optional(), to: Instant.optional(), ...PageArgs }),
  output: z.object({ items: z.array(DeploymentSummary), ...PageInfo }),
  effect: 'read',
  async run(ctx, { page, limit, ...filter }) {
    const items = (await listDeployments(ctx, keyWorkspace(ctx), filter)).map(toDeployment).map(deploymentSummary);
    const data = pageOf(paginate(items, page, limit));
    return { data, text: listText('deployments', data, deploymentLine) };
  },
});

const Deployed = z.object({ deployment: DeploymentSummary });

const openDeploymentTool = defineTool({
  name: 'open_deployment',
  area: 'deployments',
  title: 'Open a deployment window',
  description:
    'Opens a deployment window on a project (the body of POST /v1/deployments). With autoPause (the default) the ' +
    "project's checks, or only checkIds, are paused until it ends; ttlMinutes (1-1440) ends it automatically.",
  input: DeploymentCreateV1,
  output: Deployed,
  effect: { destructive: true, idempotent: false },
  async run(ctx, body) {
    const deployment = deploymentSummary(toDeployment(await openDeployment(ctx, body)));
    return { data: { deployment }, text: `Opened ${deploymentLine(deployment)}` };
  },
});

const endDeploymentTool = defineTool({
  name: 'end_deployment',
  area: 'deployments',
  title: 'End a deployment window',
  description: 'Ends a deployment window and resumes the checks it paused. Ending an ended deployment returns it unchanged.',
  input: z.object({ deploymentId: Id }),
  output: Deployed,
  effect: { destructive: true, idempotent: true },
  async run(ctx, { deploymentId }) {
    const deployment = deploymentSummary(toDeployment(await endDeployment(ctx, deploymentId)));
    return { data: { deployment }, text: `Ended ${deploymentLine(deployment)}` };
  },
});

const listWindowsTool = defineTool({
  name: 'list_maintenance_windows',
  area: 'maintenance',
  title: 'List maintenance windows',
  description: 'Maintenance windows of the workspace, newest first; filter by state, project and time range. Paginated: the answer says how many remain.',
  input: z.object({ state: z.enum(MAINTENANCE_STATES).optional(), projectId: Id.optional(), from: Instant.optional(), to: Instant.optional(), ...PageArgs }),
  output: z.object({ items: z.array(MaintenanceSummary), ...PageInfo }),
  effect: 'read',
  async run(ctx, { page, limit, ...filter }) {
    const items = (await listMaintenanceWindows(ctx, keyWorkspace(ctx), filter)).map(toMaintenanceWindow).map(maintenanceSummary);
    const data = pageOf(paginate(items, page, limit));
    return { data, text: listText('maintenance windows', data, windowLine) };
  },
});

const Maintained = z.object({ window: MaintenanceSummary });

const openWindowTool = defineTool({
  name: 'open_maintenance_window',
  area: 'maintenance',
  title: 'Open a maintenance window',
  description:
    'Creates a maintenance window (the body of POST /v1/maintenance-windows): ACTIVE when startAt has passed or is ' +
    'omitted, else SCHEDULED. By default it suppresses incidents and alerts on its projects (default: every project).',
  input: MaintenanceWindowCreateV1,
  output: Maintained,
  effect: { destructive: true, idempotent: false },
  async run(ctx, body) {
    const window = maintenanceSummary(toMaintenanceWindow(await createMaintenanceWindow(ctx, { ...body, workspaceId: keyWorkspace(ctx) })));
    return { data: { window }, text: `Opened ${windowLine(window)}` };
  },
});

const endWindowTool = defineTool({
  name: 'end_maintenance_window',
  area: 'maintenance',
  title: 'End a maintenance window',
  description: 'Ends a maintenance window early (COMPLETED). A window already completed or cancelled is returned as it is.',
  input: z.object({ windowId: Id }),
  output: Maintained,
  effect: { destructive: true, idempotent: true },
  async run(ctx, { windowId }) {
    const window = maintenanceSummary(toMaintenanceWindow(await finishMaintenanceWindow(ctx, windowId, 'COMPLETED')));
    return { data: { window }, text: `Ended ${windowLine(window)}` };
  },
});

export const windowTools: Tool[] = [listDeploymentsTool, openDeploymentTool, endDeploymentTool, listWindowsTool, openWindowTool, endWindowTool];
