import type { Hono } from 'hono';
import { createAppShell } from './appShell.js';
import type { Deps } from './deps.js';
import type { AppEnv } from './http/env.js';
import { v1Routes } from './v1/routes.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { mcpRoutes } from './mcp/index.js';
import { installMetricsRoutes } from './metrics/routes.js';
import { statusHtmlRoutes } from './statuspages/html/routes.js';
import { hcPingRoutes } from './signals/hcPing.js';
import { PingHints } from './signals/hints.js';
import { answerKumaPush, KUMA_PUSH_PATH } from './signals/kumaPush.js';
import vigilFileSchema from './http/vigil.schema.json';

/**
 * The whole HTTP surface under `/api`. Locally it is served by one Node server; on AWS it is the
 * API Lambda, and the ping paths go to the signals Lambda's smaller createSignalApp.
 */
export function createApp(deps: Deps): Hono<AppEnv> {
  return createAppShell(deps, (app) => {
    // First, so its ping counter wraps the signal routes mounted below.
    app.route('/', installMetricsRoutes());
    app.route('/api/v1', v1Routes());
    // Healthchecks-compatible pings ({signal_base_url}/ping/...): plain text, outside the OpenAPI surface like Healthchecks' own.
    app.route('/api/ping', hcPingRoutes());
    // The assistant surface at {base_url}/mcp and at /mcp ({mcp_url} locally); it reads the app's own OpenAPI documents.
    const mcp = mcpRoutes({ readDocument: (path) => app.request(path) });
    app.route('/api/mcp', mcp);
    app.route('/mcp', mcp);
    // Uptime Kuma's push path (core/signals/kumaPush.ts), served here too for `npm start`'s one server.
    const hints = new PingHints();
    app.on(['GET', 'POST'], KUMA_PUSH_PATH, (c) => answerKumaPush(c.var.deps, c, hints));
    // The JSON Schema of `vigil export`'s file, public so editors can fetch it from the file's header comment (core/cli/macFile.ts).
    app.get('/api/schemas/vigil.schema.json', (c) => {
      c.header('cache-control', 'public, max-age=300');
      return c.json(vigilFileSchema);
    });
    app.route('/api', dashboardRoutes());
    app.route('/', statusHtmlRoutes());
  });
}
