import { createRoute, z } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import { sessionAuth } from '../auth/middleware.js';
import { jsonBody, jsonResponse, sessionSecurity } from '../http/openapi.js';
import { createRouter } from '../http/router.js';
import {
  AnnouncementCreate,
  AnnouncementEntry,
  AnnouncementEntryCreate,
  MarkdownPreview,
  AnnouncementIdParam,
  AnnouncementListQuery,
  AnnouncementUpdate,
  AnnouncementView,
  CheckSlugQuery,
  CustomDomainVerification,
  StatusPage,
  StatusPageIdParam,
} from './schema.js';
import { isSlugAvailable, listStatusPages, statusPageView } from './pages.js';
import { componentRoutes, pageRoutes } from './configRoutes.js';
import { verifyDomain } from './customDomain.js';
import { renderMarkdown } from './render/sanitize.js';
import { ErrorBody } from '../http/errors.js';
import { subscriberDashboardRoutes } from './subscribers/routes.js';
import { createAnnouncement, listAnnouncements, loadAnnouncement, patchAnnouncement, postAnnouncementEntry, toAnnouncementView, withTimelines } from './announcements.js';

const security = sessionSecurity;
const tags = ['status-pages'];
const WorkspaceQuery = z.object({ workspaceId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional() });
const VerifyDomainResult = z
  .object({ verified: z.literal(true), expected: z.string(), found: z.array(z.string()), customDomainVerification: CustomDomainVerification })
  .openapi('VerifyDomainResult');

/** Dashboard `/status-pages` (session token): pages, components, announcements. */
export function statusPageRoutes() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.route('/', subscriberDashboardRoutes());
  r.openapi(
    createRoute({
      method: 'get',
      path: '/check-slug',
      tags,
      security,
      request: { query: CheckSlugQuery },
      responses: { 200: jsonResponse(z.object({ isAvailable: z.boolean() }), 'Availability') },
    }),
    async (c) => c.json({ isAvailable: await isSlugAvailable(c.var.deps, c.req.valid('query').slug) }, 200),
  );
  // The dashboard's preview of announcement Markdown: the public page's own renderer and allowlist,
  // so what the editor shows is what subscribers will read (no second sanitiser in the browser).
  r.openapi(
    createRoute({
      method: 'post',
      path: '/markdown-preview',
      tags,
      security,
      request: { body: jsonBody(MarkdownPreview) },
      responses: { 200: jsonResponse(z.object({ html: z.string().describe('Rendered and sanitised exactly as on the public page') }), 'Preview') },
    }),
    async (c) => c.json({ html: renderMarkdown(c.req.valid('json').body).trim() }, 200),
  );
  r.openapi(
    createRoute({ method: 'get', path: '/', tags, security, request: { query: WorkspaceQuery }, responses: { 200: jsonResponse(z.array(StatusPage), 'Pages') } }),
    async (c) => c.json((await listStatusPages(requestCtx(c), c.req.valid('query').workspaceId)).map(statusPageView(c.var.deps.config)), 200),
  );
  const shared = { tags, security, base: '', paginated: false } as const;
  pageRoutes(r, shared);
  r.openapi(
    createRoute({
      method: 'post',
      path: '/{id}/verify-domain',
      tags,
      security,
      request: { params: StatusPageIdParam },
      responses: {
        200: jsonResponse(VerifyDomainResult, 'Both records found: the domain is locked to this page and served'),
        409: jsonResponse(ErrorBody, 'Another page has verified the domain (DOMAIN_TAKEN)'),
        422: jsonResponse(ErrorBody, 'The TXT or CNAME record is missing (DOMAIN_NOT_VERIFIED; details say which)'),
      },
    }),
    async (c) => c.json(await verifyDomain(requestCtx(c), c.req.valid('param').id), 200),
  );

  componentRoutes(r, shared);

  r.openapi(
    createRoute({
      method: 'post',
      path: '/{id}/announcements',
      tags,
      security,
      request: { params: StatusPageIdParam, body: jsonBody(AnnouncementCreate) },
      responses: { 201: jsonResponse(AnnouncementView, 'Created') },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const created = await createAnnouncement(ctx, c.req.valid('param').id, { type: 'create', ...c.req.valid('json') });
      return c.json((await withTimelines(ctx.deps, [created], toAnnouncementView))[0], 201);
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/announcements',
      tags,
      security,
      request: { params: StatusPageIdParam, query: AnnouncementListQuery },
      responses: { 200: jsonResponse(z.array(AnnouncementView), 'Newest first') },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const { status, take, skip } = c.req.valid('query');
      const items = (await listAnnouncements(ctx, c.req.valid('param').id, status)).slice(skip, skip + take);
      return c.json(await withTimelines(ctx.deps, items, toAnnouncementView), 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/{id}/announcements/{announcementId}',
      tags,
      security,
      request: { params: AnnouncementIdParam, body: jsonBody(AnnouncementUpdate) },
      responses: { 200: jsonResponse(AnnouncementView, 'Updated') },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const { id, announcementId } = c.req.valid('param');
      const updated = await patchAnnouncement(ctx, id, announcementId, { type: 'patch', ...c.req.valid('json') });
      return c.json((await withTimelines(ctx.deps, [updated], toAnnouncementView))[0], 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/announcements/{announcementId}',
      tags,
      security,
      request: { params: AnnouncementIdParam },
      responses: { 200: jsonResponse(AnnouncementView, 'Announcement') },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const { id, announcementId } = c.req.valid('param');
      return c.json((await withTimelines(ctx.deps, [await loadAnnouncement(ctx, id, announcementId)], toAnnouncementView))[0], 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/{id}/announcements/{announcementId}/updates',
      tags,
      security,
      request: { params: AnnouncementIdParam, body: jsonBody(AnnouncementEntryCreate) },
      responses: { 201: jsonResponse(AnnouncementEntry, 'Timeline entry') },
    }),
    async (c) => {
      const { id, announcementId } = c.req.valid('param');
      return c.json(await postAnnouncementEntry(requestCtx(c), id, announcementId, c.req.valid('json')), 201);
    },
  );
  return r;
}
