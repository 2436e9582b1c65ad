import type { Database, SqlValue } from 'sql.js';
import { badRequest } from '../http/errors.js';
import { zodDetails } from '../http/router.js';
import { UptimeKumaExport, type KumaData } from './kumaFormat.js';

/*
 * Uptime Kuma's SQLite database (`data/kuma.db`) read with sql.js (SQLite compiled to
 * WebAssembly: no native build). Only the tables the import maps are read, with the column names
 * of Kuma's schema (db/knex_init_db.js and db/knex_migrations in louislam/uptime-kuma); columns a
 * Kuma version lacks read as absent. Heartbeat history is never read.
 */

type Row = Record<string, SqlValue>;
type SqlJs = Awaited<ReturnType<typeof import('sql.js')['default']>>;
let engine: Promise<SqlJs> | undefined;
// Loaded on the first import only: no other request pays for the WebAssembly module. The inline
// build carries it in the JavaScript, so the API Lambda's bundle has it too.
const sqlJs = (): Promise<SqlJs> => (engine ??= import('sql.js/dist/sql-wasm-inline.js').then((module) => module.default()));

function rows(db: Database, sql: string): Row[] {
  const [result] = db.exec(sql);
  if (!result) return [];
  return result.values.map((values) => Object.fromEntries(result.columns.map((column, i) => [column, values[i] ?? null])));
}

const str = (value: SqlValue | undefined): string | null => (value === null || value === undefined ? null : String(value));
const num = (value: SqlValue | undefined): number | null => (typeof value === 'number' ? value : value === null || value === undefined || value === '' ? null : Number(value));
const byId = <T>(list: Row[], key: string, value: (row: Row) => T): Map<number, T[]> => {
  const map = new Map<number, T[]>();
  for (const row of list) map.set(Number(row[key]), [...(map.get(Number(row[key])) ?? []), value(row)]);
  return map;
};

function statusCodes(json: SqlValue | undefined): string[] {
  try {
    const parsed: unknown = JSON.parse(str(json) ?? '["200-299"]');
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

function readTables(db: Database): unknown {
  const tables = new Set(rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'").map((row) => String(row.name)));
  if (!tables.has('monitor')) throw badRequest('Not an Uptime Kuma database: it has no monitor table', [{ path: 'database', message: 'no monitor table' }]);
  const has = (...names: string[]) => names.every((name) => tables.has(name));
  const tags = has('monitor_tag', 'tag')
    ? byId(rows(db, 'SELECT mt.monitor_id, t.name, mt.value FROM monitor_tag mt JOIN tag t ON t.id = mt.tag_id'), 'monitor_id', (r) => ({
        name: String(r.name),
        value: str(r.value),
      }))
    : new Map();
  const monitorList = rows(db, 'SELECT * FROM monitor ORDER BY id').map((m) => ({
    id: Number(m.id),
    name: str(m.name) ?? '',
    type: str(m.type) ?? '',
    description: str(m.description),
    url: str(m.url),
    method: str(m.method),
    interval: num(m.interval) ?? 60,
    retryInterval: num(m.retry_interval),
    maxretries: num(m.maxretries),
    timeout: num(m.timeout),
    maxredirects: num(m.maxredirects),
    accepted_statuscodes: statusCodes(m.accepted_statuscodes_json),
    pushToken: str(m.push_token),
    active: num(m.active) ?? 1,
    upsideDown: num(m.upside_down) ?? 0,
    ignoreTls: num(m.ignore_tls) ?? 0,
    keyword: str(m.keyword),
    headers: str(m.headers),
    body: str(m.body),
    basic_auth_user: str(m.basic_auth_user),
    tags: tags.get(Number(m.id)) ?? [],
  }));
  const notificationList = has('notification') ? rows(db, 'SELECT id, name FROM notification ORDER BY id').map((n) => ({ id: Number(n.id), name: str(n.name) })) : [];
  const maintained = has('monitor_maintenance')
    ? byId(rows(db, 'SELECT maintenance_id, monitor_id FROM monitor_maintenance'), 'maintenance_id', (r) => Number(r.monitor_id))
    : new Map();
  const maintenanceList = has('maintenance')
    ? rows(db, 'SELECT * FROM maintenance ORDER BY id').map((w) => ({
        id: Number(w.id),
        title: str(w.title) ?? '',
        description: str(w.description),
        strategy: str(w.strategy) ?? 'single',
        active: num(w.active) ?? 1,
        start_date: str(w.start_date),
        end_date: str(w.end_date),
        timezone: str(w.timezone),
        monitorIds: maintained.get(Number(w.id)) ?? [],
      }))
    : [];
  const grouped = has('monitor_group') ? byId(rows(db, 'SELECT group_id, monitor_id FROM monitor_group ORDER BY weight, id'), 'group_id', (r) => Number(r.monitor_id)) : new Map();
  const groups = has('group')
    ? byId(rows(db, 'SELECT id, name, status_page_id FROM "group" ORDER BY weight, id'), 'status_page_id', (g) => ({
        name: str(g.name) ?? '',
        monitorIds: grouped.get(Number(g.id)) ?? [],
      }))
    : new Map();
  const statusPageList = has('status_page')
    ? rows(db, 'SELECT * FROM status_page ORDER BY id').map((p) => ({
        id: Number(p.id),
        slug: str(p.slug) ?? '',
        title: str(p.title) ?? '',
        published: num(p.published) ?? 1,
        description: str(p.description),
        footer_text: str(p.footer_text),
        custom_css: str(p.custom_css),
        groups: groups.get(Number(p.id)) ?? [],
      }))
    : [];
  return { monitorList, notificationList, maintenanceList, statusPageList };
}

/** The database's monitors, maintenance and status pages in the import's shape, or a 400 for a file that is not Kuma's. */
export async function readKumaDatabase(bytes: Uint8Array): Promise<KumaData> {
  const SQL = await sqlJs();
  let data: unknown;
  const db = new SQL.Database(bytes);
  try {
    data = readTables(db);
  } catch (err) {
    if (err instanceof Error && !('status' in err)) throw badRequest(`Not a readable SQLite database: ${err.message}`, [{ path: 'database', message: err.message }]);
    throw err;
  } finally {
    db.close();
  }
  const parsed = UptimeKumaExport.safeParse(data);
  if (!parsed.success) throw badRequest('The database holds values out of the import’s bounds', zodDetails(parsed.error));
  if ('database' in parsed.data) throw badRequest('Not an Uptime Kuma database');
  return parsed.data;
}
