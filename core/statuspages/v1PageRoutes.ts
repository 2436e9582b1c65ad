import { createRoute } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import { apiKeySecurity as security, jsonResponse as json } from '../http/openapi.js';
import { paginate, pageQuery, pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { WorkspaceQuery } from '../identity/schema.js';
import { componentRoutes, pageRoutes } from './configRoutes.js';
import { listStatusPages, statusPageView } from './pages.js';
import { StatusPage } from './schema.js';

const tags = ['v1', 'status-pages'];

/**
 * `/v1/status-pages` and their components: the dashboard's verbs for a read_write key of the
 * workspace (`workspaceId` defaults to the key's own). Announcements are in ./v1Routes.ts.
 */
export function v1StatusPageConfigRoutes() {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: 'get',
      path: '/status-pages',
      tags,
      security,
      request: { query: WorkspaceQuery.extend(pageQuery(20).shape) },
      responses: { 200: json(pageSchema(StatusPage, 'StatusPagePage'), 'Pages of the workspace') },
    }),
    async (c) => {
      const { workspaceId, page, limit } = c.req.valid('query');
      const pages = (await listStatusPages(requestCtx(c), workspaceId)).map(statusPageView(c.var.deps.config));
      return c.json(paginate(pages, page, limit), 200);
    },
  );
  const shared = { tags, security, base: '/status-pages', paginated: true } as const;
  pageRoutes(r, shared);
  componentRoutes(r, shared);
  return r;
}
