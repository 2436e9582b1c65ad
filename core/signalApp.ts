import type { Hono } from 'hono';
import { createAppShell } from './appShell.js';
import type { Deps } from './deps.js';
import type { AppEnv } from './http/env.js';
import { signalRoutes } from './signals/routes.js';

/**
 * The signal surface alone (`/api/signals/...`: token pings, slug pings, and the session-token
 * history and stream that share their router), for the signals Lambda: ping traffic is the hot
 * path, so its cold start loads no dashboard, incident or probe module. createApp serves the same
 * routes locally.
 */
export function createSignalApp(deps: Deps): Hono<AppEnv> {
  return createAppShell(deps, (app) => {
    app.route('/api/signals', signalRoutes());
  });
}
