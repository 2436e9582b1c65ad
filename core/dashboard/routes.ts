import { createRouter } from '../http/router.js';
import { DOCUMENT_LICENSE, serveOpenApi } from '../http/openapi.js';
import { authRoutes } from '../auth/routes.js';
import { identityRoutes } from '../identity/routes.js';
import { meRoutes } from '../identity/workspaceRoutes.js';
import { alertChannelRoutes } from '../alerting/channelsRoutes.js';
import { integrationRoutes } from '../integrations/routes.js';
import { deploymentRoutes } from '../deployments/routes.js';
import { maintenanceRoutes } from '../maintenance/routes.js';
import { checkSurfaceRoutes } from './checkRoutes.js';
import { incidentRoutes } from '../incidents/routes.js';
import { dependencyRoutes } from '../dependencies/routes.js';
import { signalRoutes } from '../signals/routes.js';
import { onCallRoutes } from '../oncall/routes.js';
import { escalationRoutes } from '../escalation/routes.js';
import { statusPageRoutes } from '../statuspages/routes.js';
import { publicStatusRoutes } from '../statuspages/public/routes.js';
import { verifySubscriberEndpoint } from '../alerting/subscriberVerify.js';

/**
 * The session API's OpenAPI document exactly as `/api/openapi.json` serves it, built without a
 * store: `npm run gen:api` types the dashboard's client from it.
 */
export async function dashboardOpenApiDocument(): Promise<unknown> {
  const response = await dashboardRoutes().request('/openapi.json');
  return response.json();
}

/** The session API under `/api`: every area's dashboard router, the routes that join areas, one OpenAPI document. */
export function dashboardRoutes() {
  const dashboard = createRouter();
  dashboard.route('/', authRoutes());
  dashboard.route('/me', meRoutes());
  dashboard.route('/', identityRoutes());
  dashboard.route('/alert-channels', alertChannelRoutes());
  dashboard.route('/integrations', integrationRoutes());
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
