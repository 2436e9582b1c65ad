import type { App } from 'sst/constructs';
import { ApiStack } from './ApiStack.js';
import { DashboardStack } from './DashboardStack.js';
import { MINIFY } from './bundling.js';
import { ProbeStack } from './ProbeStack.js';
import { QueueStack } from './QueueStack.js';
import { StorageStack } from './StorageStack.js';
import { StreamStack } from './StreamStack.js';
import { SweepStack } from './SweepStack.js';
import { WorkerStack } from './WorkerStack.js';
import { deploySettings, PROBE_REGIONS } from './settings.js';

/**
 * What `sst deploy` builds in the region it runs in. SST v2 deploys one region per run (a stack
 * may not set its own region), so the home region gets the whole service and every other probe
 * region only its ProbeStack; run `sst deploy --region <r>` once per probe region.
 */
export function composeStacks(app: App): void {
  const settings = deploySettings();
  app.setDefaultFunctionProps({ runtime: 'nodejs22.x', architecture: 'arm_64', nodejs: { minify: MINIFY } });
  if (app.region === settings.homeRegion) {
    app.stack(StorageStack).stack(StreamStack).stack(QueueStack).stack(ProbeStack).stack(ApiStack).stack(DashboardStack).stack(WorkerStack).stack(SweepStack);
  } else if ((PROBE_REGIONS as readonly string[]).includes(app.region)) {
    app.stack(ProbeStack);
  } else {
    throw new Error(`Vigil deploys to ${PROBE_REGIONS.join(', ')}; ${app.region} is not one of them`);
  }
}
