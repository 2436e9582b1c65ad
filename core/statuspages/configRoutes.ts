import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import type { AppEnv } from '../http/env.js';
import { jsonBody as body, jsonResponse as json } from '../http/openapi.js';
import { paginate, pageQuery, pageSchema } from '../http/pagination.js';
import { createComponent, deleteComponent, listComponents, reorderComponents, updateComponent } from './components.js';
import { createStatusPage, deleteStatusPage, getStatusPageDetail, statusPageView, updateStatusPage } from './pages.js';
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

/**
 * What differs between the dashboard's `/status-pages` (session, mounted at `/status-pages`) and
 * the Integration API's `/v1/status-pages` (API key, mounted at `/`): one definition per route
 * serves both, so the two surfaces cannot drift apart.
 */
type ConfigRouteOptions = {
  tags: string[];
  security: { [name: string]: string[] }[];
  /** '' where the router is mounted at `/status-pages`, '/status-pages' where it is mounted at the root. */
  base: '' | '/status-pages';
  /** The Integration API pages its lists; the dashboard takes the whole (bounded) array. */
  paginated: boolean;
};

type Router = OpenAPIHono<AppEnv>;

/** Create, read, update and delete one page (each router defines its own list). */
export function pageRoutes(r: Router, { tags, security, base }: ConfigRouteOptions) {
  r.openapi(
    createRoute({ method: 'post', path: base || '/', tags, security, request: { body: body(StatusPageCreate) }, responses: { 201: json(StatusPage, 'Created') } }),
    async (c) => c.json(statusPageView(c.var.deps.config)(await createStatusPage(requestCtx(c), c.req.valid('json'))), 201),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: `${base}/{id}`,
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
      path: `${base}/{id}`,
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
      path: `${base}/{id}`,
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
}

/** A page's components: list, create, reorder, update, delete. */
export function componentRoutes(r: Router, { tags, security, base, paginated }: ConfigRouteOptions) {
  const path = `${base}/{id}/components`;
  if (paginated) {
    r.openapi(
      createRoute({
        method: 'get',
        path,
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
  } else {
    r.openapi(
      createRoute({ method: 'get', path, tags, security, request: { params: StatusPageIdParam }, responses: { 200: json(z.array(Component), 'Ordered by position') } }),
      async (c) => c.json(await listComponents(requestCtx(c), c.req.valid('param').id), 200),
    );
  }
  r.openapi(
    createRoute({
      method: 'post',
      path,
      tags,
      security,
      request: { params: StatusPageIdParam, body: body(ComponentCreate) },
      responses: { 201: json(Component, 'Created') },
    }),
    async (c) => c.json(await createComponent(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 201),
  );
  // Before `{componentId}`: both are PATCH, and the literal must win.
  r.openapi(
    createRoute({
      method: 'patch',
      path: `${path}/reorder`,
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
      path: `${path}/{componentId}`,
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
      path: `${path}/{componentId}`,
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
}
