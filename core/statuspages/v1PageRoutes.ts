import { createRoute, z } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import { apiKeySecurity as security, jsonBody as body, jsonResponse as json } from '../http/openapi.js';
import { paginate, pageQuery, pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { WorkspaceQuery } from '../identity/schema.js';
import { createComponent, deleteComponent, listComponents, reorderComponents, updateComponent } from './components.js';
import { createStatusPage, deleteStatusPage, getStatusPageDetail, listStatusPages, statusPageView, updateStatusPage } from './pages.js';
import {
  Component,
  ComponentCreate,
  ComponentIdParam,
  ComponentReorder,
  ComponentUpdate,
  StatusPage,
  StatusPageCreate,
  StatusPageDetail,
  StatusPageIdParam,
  StatusPageUpdate,
} from './schema.js';

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
  r.openapi(
    createRoute({ method: 'post', path: '/status-pages', tags, security, request: { body: body(StatusPageCreate) }, responses: { 201: json(StatusPage, 'Created') } }),
    async (c) => c.json(statusPageView(c.var.deps.config)(await createStatusPage(requestCtx(c), c.req.valid('json'))), 201),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/status-pages/{id}',
      tags,
      security,
      request: { params: StatusPageIdParam },
      responses: { 200: json(StatusPageDetail, 'Page with components') },
    }),
    async (c) => c.json(await getStatusPageDetail(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/status-pages/{id}',
      tags,
      security,
      request: { params: StatusPageIdParam, body: body(StatusPageUpdate) },
      responses: { 200: json(StatusPage, 'Updated') },
    }),
    async (c) => c.json(statusPageView(c.var.deps.config)(await updateStatusPage(requestCtx(c), c.req.valid('param').id, c.req.valid('json'))), 200),
  );
  r.openapi(
    createRoute({
      method: 'delete',
      path: '/status-pages/{id}',
      tags,
      security,
      request: { params: StatusPageIdParam },
      responses: { 204: { description: 'Deleted with its components and announcements' } },
    }),
    async (c) => {
      await deleteStatusPage(requestCtx(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );

  r.openapi(
    createRoute({
      method: 'get',
      path: '/status-pages/{id}/components',
      tags,
      security,
      request: { params: StatusPageIdParam, query: pageQuery(100) },
      responses: { 200: json(pageSchema(Component, 'ComponentPage'), 'Ordered by position') },
    }),
    async (c) => {
      const { page, limit } = c.req.valid('query');
      return c.json(paginate(await listComponents(requestCtx(c), c.req.valid('param').id), page, limit), 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/status-pages/{id}/components',
      tags,
      security,
      request: { params: StatusPageIdParam, body: body(ComponentCreate) },
      responses: { 201: json(Component, 'Created') },
    }),
    async (c) => c.json(await createComponent(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 201),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/status-pages/{id}/components/reorder',
      tags,
      security,
      request: { params: StatusPageIdParam, body: body(ComponentReorder) },
      responses: { 200: json(z.array(Component), 'Components in their new order') },
    }),
    async (c) => c.json(await reorderComponents(requestCtx(c), c.req.valid('param').id, c.req.valid('json').componentIds), 200),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/status-pages/{id}/components/{componentId}',
      tags,
      security,
      request: { params: ComponentIdParam, body: body(ComponentUpdate) },
      responses: { 200: json(Component, 'Updated') },
    }),
    async (c) => {
      const { id, componentId } = c.req.valid('param');
      return c.json(await updateComponent(requestCtx(c), id, componentId, c.req.valid('json')), 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'delete',
      path: '/status-pages/{id}/components/{componentId}',
      tags,
      security,
      request: { params: ComponentIdParam },
      responses: { 204: { description: 'Deleted; its target is unaffected' } },
    }),
    async (c) => {
      const { id, componentId } = c.req.valid('param');
      await deleteComponent(requestCtx(c), id, componentId);
      return c.body(null, 204);
    },
  );
  return r;
}
