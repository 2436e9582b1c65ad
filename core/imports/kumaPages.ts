import { authorize, manageRole } from '../auth/authorize.js';
import type { Ctx } from '../context.js';
import { badRequest, HttpError } from '../http/errors.js';
import { zodDetails } from '../http/router.js';
import { createComponent, listComponents } from '../statuspages/components.js';
import { createStatusPage, pageHoldingSlug } from '../statuspages/pages.js';
import { slugShape, StatusPageCreate } from '../statuspages/schema.js';
import type { CheckItem } from '../store/entities/check.js';
import type { KumaData, KumaStatusPage } from './kumaFormat.js';
import type { ImportReport } from './report.js';
import { orSkip } from './target.js';

// The bounds of core/statuspages/schema.ts (component name, group name).
const MAX_NAME = 255;
const MAX_GROUP = 128;

const settings: [keyof KumaStatusPage, string][] = [
  ['description', 'its description is not imported: a Vigil page has a header (HTML) instead'],
  ['footer_text', 'its footer text (Markdown) is not imported: a Vigil page has a footer (HTML) instead'],
  ['custom_css', 'custom CSS is not imported: a Vigil page takes a logo and colours'],
];

/** The routes' own rule (core/auth/authorize.ts `manageRole`): a read_write key, or a person who is ADMIN. Asked once, so a dry run says it too. */
async function refusalOf(ctx: Ctx, workspaceId: number): Promise<string | null> {
  try {
    await authorize(ctx.deps, ctx.actor, workspaceId, manageRole(ctx.actor), 'Workspace');
    return null;
  } catch (err) {
    if (err instanceof HttpError && err.status < 500) return err.message;
    throw err;
  }
}

/** The page as the status page routes would take it: published pages PUBLIC, unpublished PRIVATE (404 to all but signed-in members, as Kuma hides them). */
function pageInput(workspaceId: number, name: string, slug: string, page: KumaStatusPage): StatusPageCreate {
  const parsed = StatusPageCreate.safeParse({ workspaceId, name: name.slice(0, MAX_NAME), slug, visibility: page.published === false ? 'PRIVATE' : 'PUBLIC' });
  if (!parsed.success)
    throw badRequest(
      `Not importable: ${zodDetails(parsed.error)
        .map((d) => `${d.path}: ${d.message}`)
        .join('; ')}`,
      zodDetails(parsed.error),
    );
  return parsed.data;
}

/**
 * Each Kuma status page becomes a Vigil status page through the verbs its routes use
 * (core/statuspages/pages.ts, components.ts); identity is the slug within the workspace. Each
 * group's monitors become components following the imported checks, in Kuma's order, with the
 * group's name as their `groupName` (Vigil's section heading). A slug held by another
 * workspace's page is skipped without saying whose.
 */
export async function importKumaStatusPages(
  ctx: Ctx,
  workspaceId: number,
  data: KumaData,
  checkOf: Map<number, CheckItem | 'dry'>,
  dryRun: boolean,
  report: ImportReport,
): Promise<void> {
  const pages = data.statusPageList ?? [];
  if (pages.length === 0) return;
  const refusal = await refusalOf(ctx, workspaceId);
  const monitorNames = new Map(data.monitorList.map((m) => [m.id, m.name.trim() || `${m.type} monitor ${m.id}`]));
  for (const page of pages) {
    const item = { kind: 'status-page', name: page.title.trim() || page.slug };
    const skip = (reason: string) => report.skipped.push({ ...item, reason });
    if (refusal) {
      skip(`not created: the status page routes refuse this caller (${refusal})`);
      continue;
    }
    const slug = page.slug.trim().toLowerCase();
    const shape = slugShape(slug);
    if (shape !== 'OK') {
      skip(shape === 'RESERVED' ? `its slug "${slug}" is reserved in Vigil` : 'its slug is not 1-128 lowercase letters, digits or hyphens');
      continue;
    }
    await orSkip(report, item, async () => {
      const held = await pageHoldingSlug(ctx.deps, slug);
      if (held && held.workspaceId !== workspaceId) {
        skip(`its slug "${slug}" is taken by another status page`);
        return;
      }
      let pageId = held?.statusPageId;
      const followed = new Map(held ? (await listComponents(ctx, held.statusPageId)).map((c) => [c.checkId, c.id]) : []);
      if (held) report.unchanged.push({ ...item, id: held.statusPageId });
      else {
        const input = pageInput(workspaceId, item.name, slug, page);
        if (!dryRun) pageId = (await createStatusPage(ctx, input)).statusPageId;
        report.created.push(pageId === undefined ? item : { ...item, id: pageId });
      }
      for (const [field, reason] of settings) if (page[field]) skip(reason);
      await importComponents(ctx, { pageId, title: item.name, followed, dryRun }, page, { checkOf, monitorNames }, report);
    });
  }
}

async function importComponents(
  ctx: Ctx,
  on: { pageId: number | undefined; title: string; followed: Map<number | null, number>; dryRun: boolean },
  page: KumaStatusPage,
  from: { checkOf: Map<number, CheckItem | 'dry'>; monitorNames: Map<number, string> },
  report: ImportReport,
): Promise<void> {
  let position = 0;
  for (const group of page.groups ?? []) {
    const groupName = group.name.trim().slice(0, MAX_GROUP) || null;
    if (group.monitorIds.length === 0) {
      report.skipped.push({ kind: 'status-group', name: `${on.title}: ${group.name}`, reason: 'it has no monitors: a Vigil section exists only through its components' });
      continue;
    }
    if (group.name.trim().length > MAX_GROUP)
      report.skipped.push({ kind: 'status-group', name: `${on.title}: ${group.name}`, reason: `its name is cut to ${MAX_GROUP} characters, Vigil's longest section name` });
    for (const monitorId of group.monitorIds) {
      const monitor = from.monitorNames.get(monitorId) ?? `monitor ${monitorId}`;
      const item = { kind: 'status-component', name: `${on.title}: ${monitor}` };
      const check = from.checkOf.get(monitorId);
      if (!check) {
        report.skipped.push({
          ...item,
          reason: from.monitorNames.has(monitorId) ? 'its monitor was not imported (see the monitor’s own entry)' : 'its monitor is not in the data',
        });
        continue;
      }
      const known = check === 'dry' ? undefined : on.followed.get(check.checkId);
      if (known !== undefined) {
        report.unchanged.push({ ...item, id: known });
        position++;
        continue;
      }
      const at = position++;
      const pageId = on.pageId;
      if (on.dryRun || check === 'dry' || pageId === undefined) {
        report.created.push(item);
        continue;
      }
      await orSkip(report, item, async () => {
        const component = await createComponent(ctx, pageId, { name: monitor.slice(0, MAX_NAME), groupName, position: at, showUptimeBar: true, checkId: check.checkId });
        report.created.push({ ...item, id: component.id });
      });
    }
  }
}
