import { z } from '@hono/zod-openapi';
import { paginate } from '../../http/pagination.js';
import { createAnnouncement, listAnnouncements, postAnnouncementEntry, toAnnouncementV1, withTimelines } from '../../statuspages/announcements.js';
import { listStatusPages, toStatusPage } from '../../statuspages/pages.js';
import {
  ANNOUNCEMENT_IMPACTS,
  ANNOUNCEMENT_LIST_STATUSES,
  ANNOUNCEMENT_STATUSES,
  AnnouncementCreateV1,
  AnnouncementEntryCreateV1,
  STATUS_PAGE_VISIBILITIES,
  type AnnouncementV1,
} from '../../statuspages/schema.js';
import { StaleRead } from '../../store/conditional.js';
import { keyWorkspace } from '../key.js';
import { Id, PageArgs, PageInfo } from '../schema.js';
import { defineTool, type Tool } from '../tool.js';
import { listText, pageOf } from '../present.js';

/** Status pages and their announcements: the `/v1/status-pages/:id/announcements` verbs, plus the page list. */

const PageSummary = z.object({
  id: z.number().int(),
  name: z.string(),
  slug: z.string(),
  visibility: z.enum(STATUS_PAGE_VISIBILITIES),
  enabled: z.boolean(),
  customDomain: z.string().nullable(),
});
type PageSummary = z.infer<typeof PageSummary>;

const AnnouncementSummary = z.object({
  id: z.number().int(),
  statusPageId: z.number().int(),
  title: z.string(),
  status: z.enum(ANNOUNCEMENT_STATUSES),
  impact: z.enum(ANNOUNCEMENT_IMPACTS).nullable(),
  createdAt: z.string(),
  resolvedAt: z.string().nullable(),
  componentIds: z.array(z.number().int()),
  lastUpdate: z.string().nullable().describe('the newest timeline entry, first 200 characters'),
  updateCount: z.number().int(),
});
type AnnouncementSummary = z.infer<typeof AnnouncementSummary>;

const PREVIEW = 200;
const preview = (text: string): string => (text.length > PREVIEW ? `${text.slice(0, PREVIEW - 1)}…` : text);

function announcementSummary(a: AnnouncementV1): AnnouncementSummary {
  const last = a.updates[a.updates.length - 1];
  return {
    id: a.id,
    statusPageId: a.statusPageId,
    title: a.title,
    status: a.status,
    impact: a.impact,
    createdAt: a.createdAt,
    resolvedAt: a.resolvedAt,
    componentIds: a.componentIds,
    lastUpdate: last ? preview(last.body) : null,
    updateCount: a.updates.length,
  };
}

const pageLine = (p: PageSummary): string => `#${p.id} "${p.name}" /${p.slug} ${p.visibility}${p.enabled ? '' : ' (disabled)'}${p.customDomain ? `, ${p.customDomain}` : ''}`;

const announcementLine = (a: AnnouncementSummary): string =>
  `#${a.id} ${a.status}${a.impact ? ` ${a.impact}` : ''} "${a.title}" since ${a.createdAt}` +
  (a.resolvedAt ? `, resolved ${a.resolvedAt}` : '') +
  (a.lastUpdate ? `: ${a.lastUpdate}` : '');

const listPagesTool = defineTool({
  name: 'list_status_pages',
  area: 'statuspages',
  title: 'List status pages',
  description: 'Status pages of the workspace, by id. Paginated: the answer says how many remain.',
  input: z.object({ ...PageArgs }),
  output: z.object({ items: z.array(PageSummary), ...PageInfo }),
  effect: 'read',
  async run(ctx, { page, limit }) {
    const items = (await listStatusPages(ctx, keyWorkspace(ctx)))
      .sort((a, b) => a.statusPageId - b.statusPageId)
      .map(toStatusPage)
      .map(({ id, name, slug, visibility, enabled, customDomain }) => ({ id, name, slug, visibility, enabled, customDomain }));
    const data = pageOf(paginate(items, page, limit));
    return { data, text: listText('status pages', data, pageLine) };
  },
});

const listAnnouncementsTool = defineTool({
  name: 'list_announcements',
  area: 'statuspages',
  title: 'List announcements',
  description: 'Announcements of a status page, newest first, with their latest update; status "open" or "resolved" filters. ' + 'Paginated: the answer says how many remain.',
  input: z.object({ statusPageId: Id, status: z.enum(ANNOUNCEMENT_LIST_STATUSES).optional(), ...PageArgs }),
  output: z.object({ items: z.array(AnnouncementSummary), ...PageInfo }),
  effect: 'read',
  async run(ctx, { statusPageId, status, page, limit }) {
    const envelope = paginate(await listAnnouncements(ctx, statusPageId, status), page, limit);
    // Timelines are read for this page's items only.
    const items = (await withTimelines(ctx.deps, envelope.items, toAnnouncementV1)).map(announcementSummary);
    const data = pageOf({ ...envelope, items });
    return { data, text: listText(`announcements on status page ${statusPageId}`, data, announcementLine) };
  },
});

const Announced = z.object({ announcement: AnnouncementSummary });

const postAnnouncementTool = defineTool({
  name: 'post_announcement',
  area: 'statuspages',
  title: 'Post an announcement',
  description:
    'Posts an announcement on a status page (the body of POST /v1/status-pages/:id/announcements): visible to its ' +
    'readers and subscribers at once. message is the first timeline entry; status defaults to INVESTIGATING.',
  input: AnnouncementCreateV1.extend({ statusPageId: Id }),
  output: Announced,
  effect: { destructive: false, idempotent: false },
  async run(ctx, { statusPageId, message, ...rest }) {
    const created = await createAnnouncement(ctx, statusPageId, { type: 'create', ...rest, body: message });
    const [full] = await withTimelines(ctx.deps, [created], toAnnouncementV1);
    if (!full) throw new StaleRead('announcement missing after its write');
    const announcement = announcementSummary(full);
    return { data: { announcement }, text: `Posted ${announcementLine(announcement)}` };
  },
});

const updateAnnouncementTool = defineTool({
  name: 'update_announcement',
  area: 'statuspages',
  title: 'Post an update to an announcement',
  description:
    'Adds a timeline entry to an announcement and moves it to status (the body of POST ' +
    '/v1/status-pages/:id/announcements/:announcementId/updates). RESOLVED closes it on the page.',
  input: AnnouncementEntryCreateV1.extend({ statusPageId: Id, announcementId: Id }),
  output: z.object({
    update: z.object({ id: z.number().int(), announcementId: z.number().int(), status: z.enum(ANNOUNCEMENT_STATUSES).nullable(), body: z.string(), createdAt: z.string() }),
  }),
  // Resolving takes the announcement off the page's open list, and each call adds another entry.
  effect: { destructive: true, idempotent: false },
  async run(ctx, { statusPageId, announcementId, status, message }) {
    const update = await postAnnouncementEntry(ctx, statusPageId, announcementId, { body: message, status });
    return { data: { update }, text: `Announcement #${announcementId} is now ${update.status ?? status}: ${preview(update.body)}` };
  },
});

export const statusPageTools: Tool[] = [listPagesTool, listAnnouncementsTool, postAnnouncementTool, updateAnnouncementTool];
