import type { BuildOptions } from 'esbuild';

/** `minify` of every function: stacks/index.ts sets it in the default function props. */
export const MINIFY = true;

/**
 * The esbuild options `sst deploy` bundles a Node handler with (SST v2's
 * sst/runtime/handlers/node.js: ESM, esnext, keepNames, the `createRequire` banner, the AWS SDK
 * bundled in) plus `minify` from stacks/index.ts. The cold-start bench (bench/cold.ts) and the
 * ping Lambda's bundle test (stacks/signalsBundle.test.ts) build with exactly these.
 */
export function lambdaBundleOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'esnext',
    mainFields: ['module', 'main'],
    keepNames: true,
    minify: MINIFY,
    logLevel: 'silent',
    banner: { js: "import { createRequire as topLevelCreateRequire } from 'module';\nconst require = topLevelCreateRequire(import.meta.url);" },
  };
}
