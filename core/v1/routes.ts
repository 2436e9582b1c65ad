import { apiKeyAuth } from '../auth/middleware.js';
import { createRouter } from '../http/router.js';
import { DOCUMENT_LICENSE, serveOpenApi } from '../http/openapi.js';
import { v1IdentityRoutes } from '../identity/v1Routes.js';
import { v1CheckRoutes, v1RequestUnits } from '../checks/v1Routes.js';
import { v1JobRoutes } from '../checks/v1JobRoutes.js';
import { v1DeploymentRoutes } from '../deployments/v1Routes.js';
import { v1MaintenanceRoutes } from '../maintenance/v1Routes.js';
import { v1IncidentRoutes } from '../incidents/v1Routes.js';
import { v1MetricsRoutes } from '../metrics/routes.js';
import { v1StatusPageRoutes } from '../statuspages/v1Routes.js';
import { v1StatusPageConfigRoutes } from '../statuspages/v1PageRoutes.js';
import { v1IntegrationRoutes } from '../integrations/v1Routes.js';
import { v1ImportRoutes } from '../imports/routes.js';
import { v1AlertChannelRoutes } from '../alerting/v1Routes.js';
import { v1EscalationRoutes } from '../escalation/v1Routes.js';
import { v1OnCallRoutes } from '../oncall/v1Routes.js';

/**
 * The Integration API (`/v1`): API keys only, the paginated envelope on every list. Each area's
 * `/v1` router sits in its area (`<area>/v1Routes.ts`); what they share is assembled here: the
 * key check in front of them all and the one OpenAPI document.
 */
export function v1Routes() {
  const r = createRouter();
  r.use('*', async (c, next) => {
    // The OpenAPI document is public; everything else needs a key.
    if (c.req.path === '/api/v1/openapi.json') return next();
    return apiKeyAuth({ units: v1RequestUnits })(c, next);
  });
  r.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', { type: 'http', scheme: 'bearer' });

  r.route('/', v1IdentityRoutes());
  r.route('/', v1CheckRoutes());
  r.route('/', v1JobRoutes());
  r.route('/', v1DeploymentRoutes());
  r.route('/', v1MaintenanceRoutes());
  r.route('/', v1IncidentRoutes());
  r.route('/', v1MetricsRoutes());
  r.route('/', v1StatusPageConfigRoutes());
  r.route('/', v1StatusPageRoutes());
  r.route('/', v1IntegrationRoutes());
  r.route('/', v1ImportRoutes());
  r.route('/', v1AlertChannelRoutes());
  r.route('/', v1EscalationRoutes());
  r.route('/', v1OnCallRoutes());

  serveOpenApi(r, '/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'Vigil Integration API', version: '1', license: DOCUMENT_LICENSE },
    servers: [{ url: '/api/v1' }],
  });
  return r;
}
