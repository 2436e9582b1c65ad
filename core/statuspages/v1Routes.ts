import { createRoute } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import { apiKeySecurity, jsonBody, jsonResponse } from '../http/openapi.js';
import { paginate } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import {
  AnnouncementCreateV1,
  AnnouncementEntry,
  AnnouncementEntryCreateV1,
  AnnouncementIdParam,
  AnnouncementListQueryV1,
  AnnouncementPage,
  AnnouncementV1,
  StatusPageIdParam,
} from './schema.js';
import { createAnnouncement, listAnnouncements, postAnnouncementEntry, toAnnouncementV1, withTimelines } from './announcements.js';

const security = apiKeySecurity;
const tags = ['v1', 'status-pages'];

/** `/v1/status-pages/:id/announcements`: the same records as the dashboard's. Mounted by v1Routes. */
export function v1StatusPageRoutes() {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: 'post',
      path: '/status-pages/{id}/announcements',
      tags,
      security,
      request: { params: StatusPageIdParam, body: jsonBody(AnnouncementCreateV1) },
      responses: { 201: jsonResponse(AnnouncementV1, 'Created') },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const { message, ...rest } = c.req.valid('json');
      const created = await createAnnouncement(ctx, c.req.valid('param').id, { type: 'create', ...rest, body: message });
      return c.json((await withTimelines(ctx.deps, [created], toAnnouncementV1))[0], 201);
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/status-pages/{id}/announcements',
      tags,
      security,
      request: { params: StatusPageIdParam, query: AnnouncementListQueryV1 },
      responses: { 200: jsonResponse(AnnouncementPage, 'Newest first') },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const { status, page, limit } = c.req.valid('query');
      const all = await listAnnouncements(ctx, c.req.valid('param').id, status);
      const envelope = paginate(all, page, limit);
      return c.json({ ...envelope, items: await withTimelines(ctx.deps, envelope.items, toAnnouncementV1) }, 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/status-pages/{id}/announcements/{announcementId}/updates',
      tags,
      security,
      request: { params: AnnouncementIdParam, body: jsonBody(AnnouncementEntryCreateV1) },
      responses: { 201: jsonResponse(AnnouncementEntry, 'Timeline entry') },
    }),
    async (c) => {
      const { id, announcementId } = c.req.valid('param');
      const { message, status } = c.req.valid('json');
      return c.json(await postAnnouncementEntry(requestCtx(c), id, announcementId, { body: message, status }), 201);
    },
  );
  return r;
}
