import { Hono } from 'hono';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Deps } from './deps.js';
import type { AppEnv } from './http/env.js';
import { errorBody, handleError } from './http/errors.js';
import { methodsFor, requireJsonBodies } from './http/guards.js';
import { createRouter } from './http/router.js';
import { authRoutes, meRoutes } from './auth/routes.js';
import { identityRoutes } from './identity/routes.js';
import { alertChannelRoutes } from './alerting/channelsRoutes.js';
import { v1Routes } from './v1/routes.js';
import { deploymentRoutes } from './deployments/routes.js';
import { maintenanceRoutes } from './maintenance/routes.js';
import { mountCheckRoutes } from './checks/routes.js';
import { probeRoutes } from './probes/routes.js';
import { incidentRoutes } from './incidents/routes.js';
import { dependencyRoutes } from './dependencies/routes.js';
import { signalRoutes } from './signals/routes.js';

const exemptFromJson = (path: string): boolean => path.includes('/signals/') || path.endsWith('/oauth/token');

/**
 * The whole HTTP surface under `/api`. Locally it is served by one Node server; on AWS the same
 * app runs behind API Gateway in each Lambda.
 */
export function createApp(deps: Deps): Hono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use('*', async (c, next) => {
    c.set('deps', deps);
    await next();
  });
  app.use('/api/*', requireJsonBodies(exemptFromJson));
  app.get('/api/health', (c) => c.json({ status: 'ok' }));

  const dashboard = createRouter();
  dashboard.route('/', authRoutes());
  dashboard.route('/me', meRoutes());
  identityRoutes(dashboard);
  dashboard.route('/alert-channels', alertChannelRoutes());
  // Outbound probe routes under /checks/:id/...: before the checks router (they carry their own session auth).
  dashboard.route('/checks', probeRoutes());
  mountCheckRoutes(dashboard);
  incidentRoutes(dashboard);
  dependencyRoutes(dashboard);
  dashboard.route('/signals', signalRoutes());
  dashboard.route('/deployments', deploymentRoutes());
  dashboard.route('/maintenance-windows', maintenanceRoutes());
  dashboard.openAPIRegistry.registerComponent('securitySchemes', 'session', { type: 'http', scheme: 'bearer' });
  dashboard.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'Vigil dashboard API', version: '1' },
    servers: [{ url: '/api' }],
  });

  app.route('/api/v1', v1Routes());
  app.route('/api', dashboard);

  app.notFound((c) => {
    const allowed = methodsFor(app.routes, c.req.path).filter((m) => m !== c.req.method);
    if (allowed.length > 0) {
      c.header('Allow', allowed.join(', '));
      return c.json(errorBody(405, `Method ${c.req.method} not allowed on ${c.req.path}`, 'METHOD_NOT_ALLOWED'), 405);
    }
    return c.json(errorBody(404, `No route for ${c.req.method} ${c.req.path}`, 'NOT_FOUND'), 404);
  });
  app.onError(handleError);
  return app;
}
