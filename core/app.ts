import type { Hono } from 'hono';
import { createAppShell } from './appShell.js';
import type { Deps } from './deps.js';
import type { AppEnv } from './http/env.js';
import { createRouter } from './http/router.js';
import { DOCUMENT_LICENSE, serveOpenApi } from './http/openapi.js';
import { authRoutes } from './auth/routes.js';
import { identityRoutes } from './identity/routes.js';
import { meRoutes } from './identity/workspaceRoutes.js';
import { alertChannelRoutes } from './alerting/channelsRoutes.js';
import { v1Routes } from './v1/routes.js';
import { deploymentRoutes } from './deployments/routes.js';
import { maintenanceRoutes } from './maintenance/routes.js';
import { checkSurfaceRoutes } from './dashboard/checks.js';
import { incidentRoutes } from './incidents/routes.js';
import { dependencyRoutes } from './dependencies/routes.js';
import { signalRoutes } from './signals/routes.js';
import { mcpRoutes } from './mcp/index.js';
import { installMetricsRoutes } from './metrics/routes.js';
import { onCallRoutes } from './oncall/routes.js';
import { escalationRoutes } from './escalation/routes.js';
import { statusPageRoutes } from './statuspages/routes.js';
import { publicStatusRoutes } from './statuspages/public/routes.js';
import { verifySubscriberEndpoint } from './alerting/subscriberVerify.js';
import { statusHtmlRoutes } from './statuspages/html/routes.js';

/**
 * The whole HTTP surface under `/api`. Locally it is served by one Node server; on AWS it is the
 * API Lambda, and the ping paths go to the signals Lambda's smaller createSignalApp.
 */
export function createApp(deps: Deps): Hono<AppEnv> {
  return createAppShell(deps, (app) => {
    // First, so its ping counter wraps the signal routes mounted below.
    app.route('/', installMetricsRoutes());
    app.route('/api/v1', v1Routes());
    // The assistant surface at {base_url}/mcp and at /mcp ({mcp_url} locally); it reads the app's own OpenAPI documents.
    const mcp = mcpRoutes({ readDocument: (path) => app.request(path) });
    app.route('/api/mcp', mcp);
    app.route('/mcp', mcp);
    app.route('/api', dashboardRoutes());
    app.route('/', statusHtmlRoutes());
  });
}

/**
 * The session API's OpenAPI document exactly as `/api/openapi.json` serves it, built without a
 * store: `npm run gen:api` types the dashboard's client from it.
 */
export async function dashboardOpenApiDocument(): Promise<unknown> {
  const response = await dashboardRoutes().request('/openapi.json');
  return response.json();
}

function dashboardRoutes() {
  const dashboard = createRouter();
  dashboard.route('/', authRoutes());
  dashboard.route('/me', meRoutes());
  dashboard.route('/', identityRoutes());
  dashboard.route('/alert-channels', alertChannelRoutes());
  dashboard.route('/', checkSurfaceRoutes());
  dashboard.route('/', incidentRoutes());
  dashboard.route('/dependencies', dependencyRoutes());
  dashboard.route('/signals', signalRoutes());
  dashboard.route('/deployments', deploymentRoutes());
  dashboard.route('/maintenance-windows', maintenanceRoutes());
  dashboard.route('/', onCallRoutes());
  dashboard.route('/', escalationRoutes());
  dashboard.route('/status-pages', statusPageRoutes());
  dashboard.route('/public/status', publicStatusRoutes(verifySubscriberEndpoint));
  dashboard.openAPIRegistry.registerComponent('securitySchemes', 'session', { type: 'http', scheme: 'bearer' });
  // Slug pings (`/signals/s/...`) take an API key.
  dashboard.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', { type: 'http', scheme: 'bearer' });
  serveOpenApi(dashboard, '/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'Vigil dashboard API', version: '1', license: DOCUMENT_LICENSE },
    servers: [{ url: '/api' }],
  });

  return dashboard;
}
