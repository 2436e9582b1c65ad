import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = fileURLToPath(new URL('..', import.meta.url));
const BUILT = join(WEB, 'dist', 'index.html');
const SOURCES = ['src', 'index.html', 'vite.config.ts'].map((p) => join(WEB, p));

const newest = (path: string): number => {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
};

/** True when web/dist is missing or older than a source file: `npm start` then builds first. */
export function dashboardIsStale(): boolean {
  if (!existsSync(BUILT)) return true;
  return Math.max(...SOURCES.filter(existsSync).map(newest)) > statSync(BUILT).mtimeMs;
}

/**
 * Builds the dashboard (Vite) unless web/dist is up to date; the prestart step of `npm start`, and
 * what the browser tests call. Vite writes to a directory of this process's own that then replaces
 * web/dist, so two test files building at once never serve each other's half-written build.
 */
export function ensureDashboardBuilt(): void {
  if (!dashboardIsStale()) return;
  console.log('Building the dashboard (web/dist is missing or older than web/src)...');
  const staging = `.dist-${process.pid}`;
  // A caller's NODE_ENV (vitest sets "test") would make Vite bundle React's development build.
  execFileSync('npm', ['run', '-s', 'build', '-w', 'web', '--', '--outDir', staging], { cwd: join(WEB, '..'), stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  const dist = join(WEB, 'dist');
  try {
    rmSync(dist, { recursive: true, force: true });
    renameSync(join(WEB, staging), dist);
  } catch (err) {
    // Another build got there first (ENOTEMPTY): its output is as fresh as this one.
    rmSync(join(WEB, staging), { recursive: true, force: true });
    if (!existsSync(BUILT)) throw err;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensureDashboardBuilt();
