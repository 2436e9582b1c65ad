import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaBundleOptions } from './bundling.js';

/**
 * The ping Lambda's cold start (docs/architecture.md "The ping Lambda"): every scale-out of ping traffic pays its module
 * init, so its bundle, built as `sst deploy` and the bench build it, must not carry what the ping
 * path does not run. These are what it carried before (1.35 MB against the floor's 0.4 MB).
 */
const KEPT_OUT = [
  'electrodb',
  'zod',
  '@hono/zod-openapi',
  '@asteasolutions/zod-to-openapi',
  'jsonschema',
  '@aws-sdk/lib-dynamodb',
  'jose',
  '@aws-sdk/client-scheduler',
  '@aws-sdk/client-sesv2',
];

const dir = mkdtempSync(join(tmpdir(), 'vigil-bundle-'));
const bundle = async (entry: string): Promise<{ inputs: string[]; bytes: number }> => {
  const outfile = join(dir, `${entry.replace(/\W/g, '_')}.mjs`);
  const result = await build({ ...lambdaBundleOptions(fileURLToPath(new URL(`../${entry}`, import.meta.url)), outfile), metafile: true });
  const metafile: Metafile = result.metafile;
  const output = Object.values(metafile.outputs)[0];
  if (!output) throw new Error('no output');
  return { inputs: Object.keys(metafile.inputs), bytes: output.bytes };
};

describe('the ping Lambda bundle (functions/signals.ts)', () => {
  let signals: { inputs: string[]; bytes: number };
  let floor: { inputs: string[]; bytes: number };
  beforeAll(async () => {
    signals = await bundle('functions/signals.ts');
    floor = await bundle('bench/floor.ts');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves out ElectroDB, zod, OpenAPI, the document client and the clients pings never use', () => {
    const packages = new Set(signals.inputs.flatMap((input) => input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1] ?? []));
    expect(packages.has('hono')).toBe(true);
    expect(packages.has('@aws-sdk/client-dynamodb')).toBe(true);
    for (const name of KEPT_OUT) expect(packages.has(name), name).toBe(false);
  });

  it('loads no module of the other surfaces or of the full store', () => {
    const own = signals.inputs.filter((input) => !input.includes('node_modules'));
    expect(own).toContain('core/signals/ingest.ts');
    expect(own).toContain('core/signals/ping.ts');
    const heavy = own.filter((input) =>
      /^core\/(store\/(service|client|entities\/)|http\/errors|checks\/(events|schema|repository)|signals\/(schema|routes|slugRoutes)|appShell|app\.ts|config\.ts|adapters\/aws\/(env\.ts|coreDeps|streamConnections))/.test(
        input,
      ),
    );
    expect(heavy).toEqual([]);
  });

  it('stays within 1.5 times the floor handler (Hono, a DynamoDB and an SQS client)', () => {
    expect(signals.bytes / floor.bytes).toBeLessThanOrEqual(1.5);
  });
});
