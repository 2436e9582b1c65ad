import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * The layer lint (`npm run lint:layers`, .dependency-cruiser.cjs) run on small trees of its own,
 * so that a rule which stopped matching anything (a renamed folder, a regex gone wrong) shows up
 * here instead of passing the real tree in silence.
 */

const root = resolve(import.meta.dirname, '..');
const run = promisify(execFile);
const made: string[] = [];

afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Cruises `files` (path -> source) with the project's config; the exit code and the report. */
async function lint(files: Record<string, string>): Promise<{ code: number; report: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-layers-'));
  made.push(dir);
  for (const name of ['.dependency-cruiser.cjs', '.dependency-cruiser-babel.cjs', 'node_modules']) await symlink(join(root, name), join(dir, name));
  for (const [path, source] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), source);
  }
  const bin = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  try {
    const { stdout } = await run(process.execPath, [bin, '--config', '.dependency-cruiser.cjs', 'core/**/*.ts'], { cwd: dir });
    return { code: 0, report: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    return { code: failed.code ?? -1, report: failed.stdout ?? '' };
  }
}

const leaf = 'export const value = 1;\n';

describe('the layer lint', { timeout: 90_000 }, () => {
  it('passes imports along the area graph', async () => {
    const result = await lint({
      'core/auth/roles.ts': leaf,
      'core/identity/members.ts': "import { value } from '../auth/roles.js';\nexport const members = value;\n",
    });
    expect(result.report).toContain('no dependency violations found (2 modules');
    expect(result.code).toBe(0);
  });

  it('reports an area importing one it does not build on', async () => {
    const result = await lint({
      'core/escalation/plan.ts': leaf,
      'core/identity/members.ts': "import { value } from '../escalation/plan.js';\nexport const members = value;\n",
    });
    expect(result.code).not.toBe(0);
    expect(result.report).toContain('area-graph-identity: core/identity/members.ts → core/escalation/plan.ts');
  });

  it('reports a module that is no router importing a nested router', async () => {
    const result = await lint({
      'core/statuspages/public/routes.ts': leaf,
      'core/statuspages/public/page.ts': "import { value } from './routes.js';\nexport const page = value;\n",
    });
    expect(result.code).not.toBe(0);
    expect(result.report).toContain('only-routers-import-routers: core/statuspages/public/page.ts → core/statuspages/public/routes.ts');
  });

  it('lets lower areas ask a module node of a higher area, and keeps that module off the rest of its area', async () => {
    const result = await lint({
      'core/escalation/plan.ts': leaf,
      'core/escalation/policyTargets.ts': "import { value } from './plan.js';\nexport const targets = value;\n",
      'core/identity/members.ts': "import { targets } from '../escalation/policyTargets.js';\nexport const members = targets;\n",
    });
    expect(result.code).not.toBe(0);
    expect(result.report).toContain('area-graph-escalation/policyTargets: core/escalation/policyTargets.ts → core/escalation/plan.ts');
    expect(result.report).not.toContain('core/identity/members.ts →');
  });
});
