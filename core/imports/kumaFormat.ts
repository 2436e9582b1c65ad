import { z } from '@hono/zod-openapi';
import { MAX_IMPORT_ITEMS } from './healthchecks.js';

/*
 * Uptime Kuma's data as the importer reads it: the monitor list of its JSON backup
 * (Settings > Backup > Export, `{version, notificationList, monitorList}`, each monitor as
 * `Monitor.toJSON(includeSensitiveData)` writes it: camelCase `retryInterval`, `pushToken`,
 * `accepted_statuscodes` as an array). Its SQLite database (`kuma.db`) is read into the same
 * shape by kumaSqlite.ts, which adds what only the database has: `maintenanceList` and
 * `statusPageList`. Fields Vigil has no use for are accepted and ignored.
 */

const flag = z.union([z.boolean(), z.number().int()]).transform((value) => value === true || value === 1);
const text = (max: number) => z.string().max(max).nullable().optional();

export const KumaMonitor = z.object({
  id: z.number().int(),
  name: z.string().max(1_000),
  type: z.string().max(50),
  description: text(100_000),
  url: text(5_000),
  method: text(20),
  interval: z.number().int().min(1).max(31_536_000),
  retryInterval: z.number().int().min(0).max(31_536_000).nullable().optional(),
  maxretries: z.number().int().min(0).max(10_000).nullable().optional(),
  timeout: z.number().min(0).max(86_400).nullable().optional(),
  maxredirects: z.number().int().min(0).max(10_000).nullable().optional(),
  accepted_statuscodes: z.array(z.string().max(20)).max(100).optional(),
  pushToken: text(200),
  active: flag.optional(),
  upsideDown: flag.optional(),
  ignoreTls: flag.optional(),
  keyword: text(1_000),
  headers: text(100_000),
  body: text(100_000),
  basic_auth_user: text(1_000),
  tags: z
    .array(z.object({ name: z.string().max(255), value: z.string().max(255).nullable().optional() }))
    .max(100)
    .optional(),
  notificationIDList: z.record(z.string(), z.boolean()).optional(),
});
export type KumaMonitor = z.output<typeof KumaMonitor>;

export const KumaMaintenance = z.object({
  id: z.number().int(),
  title: z.string().max(1_000),
  description: text(100_000),
  strategy: z.string().max(50),
  active: flag.optional(),
  /** Local date-times (`YYYY-MM-DD HH:mm:ss`) in `timezone` (Kuma's "SAME_AS_SERVER" or absent reads as UTC). */
  start_date: text(40),
  end_date: text(40),
  timezone: text(100),
  monitorIds: z.array(z.number().int()).max(MAX_IMPORT_ITEMS).optional(),
});
export type KumaMaintenance = z.output<typeof KumaMaintenance>;

export const KumaStatusPage = z.object({
  id: z.number().int(),
  slug: z.string().max(255),
  title: z.string().max(1_000),
  published: flag.optional(),
  description: text(100_000),
  footer_text: text(100_000),
  custom_css: text(100_000),
  groups: z
    .array(z.object({ name: z.string().max(1_000), monitorIds: z.array(z.number().int()).max(MAX_IMPORT_ITEMS) }))
    .max(1_000)
    .optional(),
});
export type KumaStatusPage = z.output<typeof KumaStatusPage>;

/** What the API takes: the backup's JSON (or the database read into it), or the database itself, base64. */
export const UptimeKumaExport = z
  .union([
    z.strictObject({
      database: z.string().max(1_400_000).openapi({ description: 'The `kuma.db` SQLite file, base64 (the body limit is 1 MiB: `vigil import` reads a bigger one locally)' }),
    }),
    z.object({
      version: z.string().max(50).optional(),
      monitorList: z.array(KumaMonitor).max(MAX_IMPORT_ITEMS),
      notificationList: z
        .array(z.object({ id: z.number().int(), name: z.string().max(1_000).nullable().optional() }))
        .max(MAX_IMPORT_ITEMS)
        .optional(),
      maintenanceList: z.array(KumaMaintenance).max(MAX_IMPORT_ITEMS).optional(),
      statusPageList: z.array(KumaStatusPage).max(MAX_IMPORT_ITEMS).optional(),
    }),
  ])
  .openapi('UptimeKumaExport', { description: 'Uptime Kuma’s JSON backup (`monitorList`, ...), or its SQLite database as `{database: <base64>}`' });
export type UptimeKumaExport = z.output<typeof UptimeKumaExport>;
export type KumaData = Exclude<UptimeKumaExport, { database: string }>;
