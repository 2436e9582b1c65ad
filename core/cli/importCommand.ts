import { parseArgs } from 'node:util';
import type { ImportReport } from '../imports/report.js';

const SOURCES = ['healthchecks', 'uptime-kuma', 'grafana-oncall'] as const;
type Source = (typeof SOURCES)[number];

export const IMPORT_USAGE = `usage: vigil import <${SOURCES.join('|')}> <file> [--dry-run] [--project <id>] [--json]
  healthchecks     the JSON of Healthchecks' GET /api/v3/checks/
  uptime-kuma      Uptime Kuma's data/kuma.db (read here, only its monitors, maintenance and status pages are sent) or its JSON backup
  grafana-oncall   Grafana OnCall's API export
  VIGIL_API_URL (e.g. https://vigil.example.com/api) and VIGIL_API_KEY (a read_write API key) must be set.`;

/** What the command touches outside itself, so a test can stand in for any of it. */
export type CliIo = {
  env: Record<string, string | undefined>;
  fetch: typeof fetch;
  readFile: (path: string) => Promise<Uint8Array>;
  writeFile: (path: string, text: string) => Promise<void>;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
};

const TITLES: Record<Source, string> = { healthchecks: 'Healthchecks', 'uptime-kuma': 'Uptime Kuma', 'grafana-oncall': 'Grafana OnCall' };
const SQLITE_MAGIC = 'SQLite format 3\0';

/** The report as a person reads it: what was made, what was there, and every skipped item with its reason. */
export function formatReport(report: ImportReport): string {
  const lines = [`${TITLES[report.source]} import${report.dryRun ? ' (dry run: nothing was changed)' : ''}`];
  const section = (title: string, items: { kind: string; name: string; id?: number | undefined; reason?: string }[], mark: string) => {
    lines.push(`${title} (${items.length})${items.length > 0 ? ':' : ''}`);
    for (const item of items)
      lines.push(`  ${mark} ${item.kind} ${JSON.stringify(item.name)}${item.id !== undefined ? ` #${item.id}` : ''}${item.reason ? `: ${item.reason}` : ''}`);
  };
  section(report.dryRun ? 'would create' : 'created', report.created, '+');
  section('unchanged', report.unchanged, '=');
  section('skipped', report.skipped, '-');
  return `${lines.join('\n')}\n`;
}

/** The body to send: JSON as it is, and a Kuma database read here (a kuma.db holds heartbeats far past the API's body limit). */
async function bodyOf(source: Source, bytes: Uint8Array): Promise<unknown> {
  if (source === 'uptime-kuma' && Buffer.from(bytes.subarray(0, SQLITE_MAGIC.length)).toString('latin1') === SQLITE_MAGIC) {
    // Loaded only for a database: every other run starts without sql.js and zod.
    const { readKumaDatabase } = await import('../imports/kumaSqlite.js');
    return readKumaDatabase(bytes);
  }
  return JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown;
}

/** `vigil import`: exit 0 with the report printed, 1 when Vigil refused or could not be reached, 2 for a usage error. */
export async function importCommand(argv: string[], io: CliIo): Promise<number> {
  const usage = (message: string) => {
    io.stderr.write(`vigil import: ${message}\n${IMPORT_USAGE}\n`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { 'dry-run': { type: 'boolean' }, project: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    return usage(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(`${IMPORT_USAGE}\n`);
    return 0;
  }
  const [source, file, ...extra] = positionals;
  if (!source || !(SOURCES as readonly string[]).includes(source)) return usage(`the source is one of ${SOURCES.join(', ')}`);
  if (!file || extra.length > 0) return usage('give exactly one file');
  if (values.project !== undefined && !/^[1-9][0-9]{0,15}$/.test(values.project)) return usage('--project is a project id');
  const base = io.env.VIGIL_API_URL?.replace(/\/+$/, '');
  const key = io.env.VIGIL_API_KEY;
  if (!base || !URL.canParse(base)) return usage('set VIGIL_API_URL to your Vigil API (ending in /api)');
  if (!key) return usage('set VIGIL_API_KEY to a read_write API key');

  let body: unknown;
  try {
    body = await bodyOf(source as Source, await io.readFile(file));
  } catch (error) {
    io.stderr.write(`vigil import: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const query = new URLSearchParams({ dryRun: values['dry-run'] ? 'true' : 'false', ...(values.project ? { projectId: values.project } : {}) });
  let response: Response;
  try {
    response = await io.fetch(`${base}/v1/import/${source}?${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (error) {
    io.stderr.write(`vigil import: cannot reach ${base}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      const error = JSON.parse(text) as { message?: string; details?: { path: string; message: string }[] };
      message = [error.message, ...(error.details ?? []).slice(0, 20).map((d) => `  ${d.path}: ${d.message}`)].join('\n');
    } catch {
      // Not Vigil's error shape (a proxy's page): shown as it came.
    }
    io.stderr.write(`vigil import: ${response.status}: ${message}\n`);
    return 1;
  }
  io.stdout.write(values.json ? `${text}\n` : formatReport(JSON.parse(text) as ImportReport));
  return 0;
}
