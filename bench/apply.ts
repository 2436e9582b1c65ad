import { loadConfig } from '../core/config.js';
import { startLocalServer } from '../core/localServer.js';
import { vigil } from '../core/cli/vigil.js';

/**
 * `apply_1000_checks_seconds`: `vigil apply` (core/cli/macCommands.ts) of a file of 1,000 HTTP
 * checks (created through `POST /v1/checks/batch`, 100 a request) to an empty workspace of `npm start`'s server, over HTTP with one API key, as a CI job
 * runs it; then the same file again (`apply_noop_seconds`: reads only, nothing to do). The key's
 * rate limit (100 units a minute, a batch costing one per ten checks) may pace the first apply:
 * the time spent waiting it out is printed beside it.
 */
const CHECKS = Number(process.env.BENCH_APPLY_CHECKS ?? 1000);

type Print = (name: string, value: number, digits?: number) => void;

function applyFile(count: number): string {
  const lines = ['version: 1', 'checks:'];
  for (let i = 0; i < count; i++)
    lines.push(`  - slug: check-${i}`, `    name: Check ${i}`, '    project: Default', '    intervalSeconds: 3600', '    config:', `      url: https://example.com/health/${i}`);
  return `${lines.join('\n')}\n`;
}

export async function applyBenchmark(endpoint: string, print: Print): Promise<void> {
  const config = loadConfig({ PORT: '0', VIGIL_TABLE_NAME: 'bench_apply', VIGIL_DYNAMODB_ENDPOINT: endpoint, VIGIL_DATA_DIR: ':memory:' });
  const server = await startLocalServer(config, { log: false });
  const api = server.baseUrl;
  try {
    const signup = await fetch(`${api}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `apply-${process.pid}@example.com`, password: 'benchmark password', name: 'bench' }),
    });
    const me = (await signup.json()) as { access_token: string; workspace: { id: number } };
    const keyRes = await fetch(`${api}/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${me.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workspaceId: me.workspace.id, name: 'ci', permission: 'read_write', kind: 'service' }),
    });
    if (!keyRes.ok) throw new Error(`api key: ${keyRes.status} ${await keyRes.text()}`);
    const { key } = (await keyRes.json()) as { key: string };
    const file = Buffer.from(applyFile(CHECKS));
    const counts = { requests: 0, waitSeconds: 0 };
    const metered: typeof fetch = async (input, init) => {
      counts.requests++;
      const res = await fetch(input, init);
      if (res.status === 429) counts.waitSeconds += Math.min(60, Math.max(1, Number(res.headers.get('retry-after')) || 1));
      return res;
    };
    const quiet = { write: () => true } as unknown as NodeJS.WritableStream;
    let errors = '';
    const apply = async () => {
      const started = performance.now();
      const code = await vigil(['apply', '-f', 'vigil.yaml'], {
        env: { VIGIL_API_URL: api, VIGIL_API_KEY: key },
        fetch: metered,
        readFile: async () => file,
        writeFile: async () => {},
        stdout: quiet,
        stderr: { write: (chunk: string) => ((errors += chunk), true) } as unknown as NodeJS.WritableStream,
      });
      if (code !== 0) throw new Error(`vigil apply exited ${code}: ${errors}`);
      return (performance.now() - started) / 1000;
    };
    const first = await apply();
    print('apply_1000_checks_seconds', first);
    print('apply_1000_checks_requests', counts.requests, 0);
    print('apply_1000_checks_rate_limit_wait_seconds', counts.waitSeconds, 0);
    print('apply_1000_checks_working_seconds', first - counts.waitSeconds);
    const checks = (await (await fetch(`${api}/v1/checks?limit=1`, { headers: { authorization: `Bearer ${key}` } })).json()) as { total: number };
    if (checks.total !== CHECKS) throw new Error(`apply left ${checks.total} checks, not ${CHECKS}`);
    counts.requests = 0;
    counts.waitSeconds = 0;
    print('apply_noop_seconds', await apply());
    print('apply_noop_requests', counts.requests, 0);
    print('apply_noop_rate_limit_wait_seconds', counts.waitSeconds, 0);
  } finally {
    await server.stop();
  }
}
