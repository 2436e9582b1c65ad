import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { offlineApp } from '../stacks/offline.js';
import { deploySettings, PROBE_REGIONS } from '../stacks/settings.js';

/**
 * `npm run synth`: every stack's CloudFormation template, as `sst deploy` would create it in each
 * region (the home region's whole service, a probe region's ProbeStack), written to
 * `.synth/<region>/<stack>.json` without an AWS account or the network (stacks/offline.ts). The
 * settings come from the environment as for a deploy (VIGIL_HOME_REGION, VIGIL_MAIL_FROM, ...).
 * SST keeps its stacks in one registry per process, so each region is built in a child process
 * (`scripts/synth.ts <region>`).
 */
const OUT = fileURLToPath(new URL('../.synth/', import.meta.url));
const STAGE = 'synth';

const region = process.argv[2];
if (region === undefined) {
  rmSync(OUT, { recursive: true, force: true });
  const home = deploySettings().homeRegion;
  for (const each of [home, ...PROBE_REGIONS.filter((r) => r !== home)]) {
    execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), each], { stdio: 'inherit' });
  }
} else {
  const app = await offlineApp(region, {}, STAGE);
  const dir = join(OUT, region);
  mkdirSync(dir, { recursive: true });
  for (const stack of app.node.children.filter((child): child is Stack => child instanceof Stack)) {
    const file = join(dir, `${stack.node.id}.json`);
    writeFileSync(file, `${JSON.stringify(Template.fromStack(stack).toJSON(), null, 2)}\n`);
    console.log(`synth: ${region} ${stack.node.id} -> ${file.slice(OUT.length - '.synth/'.length)}`);
  }
}
