import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'sst/constructs';
import { initProject } from 'sst/project.js';
import { composeStacks } from './index.js';

/** A made-up account: an offline synth names no real one, and the templates show it where an ARN has an account. */
export const OFFLINE_ACCOUNT = '123456789012';

/**
 * Builds the app as `sst deploy --stage <stage> --region <region>` would, bundling
 * the functions with esbuild, without an AWS account or the network: NODE_ENV=test keeps SST from
 * looking up the bootstrap stack, and the dashboard's StaticSite uploads a stand-in page instead
 * of running `npm run build:web` unless VIGIL_DASHBOARD_DIST already names a build. Used by the
 * stack tests (test/support/stacks.ts) and `npm run synth` (scripts/synth.ts).
 */
export async function offlineApp(region: string, env: Record<string, string> = {}, stage = 'test'): Promise<App> {
  process.env.NODE_ENV ??= 'test';
  Object.assign(process.env, { VIGIL_DASHBOARD_DIST: process.env.VIGIL_DASHBOARD_DIST ?? dashboardStandIn() }, env);
  await initProject({ stage });
  const app = new App({ mode: 'deploy', stage, name: 'vigil', region, account: OFFLINE_ACCOUNT });
  composeStacks(app);
  await app.finish();
  return app;
}

/** The dashboard's build output reduced to its shell, so the synth does not depend on web/ having been built. */
function dashboardStandIn(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-dashboard-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Vigil</title><div id="root"></div>');
  return dir;
}
