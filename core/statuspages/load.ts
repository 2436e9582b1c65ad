import type { Ctx } from '../context.js';
import { authorize } from '../auth/authorize.js';
import { notFound } from '../http/errors.js';
import type { StatusPageItem } from '../store/entities/statusPage.js';

// Apart from pages.ts, which deletes a page's components and announcements: they load their page too.

/** A page the caller may see at `minimum`; unknown and foreign ids are both 404. */
export async function loadStatusPage(ctx: Ctx, statusPageId: number, minimum: 'VIEWER' | 'MEMBER' | 'ADMIN' = 'VIEWER'): Promise<StatusPageItem> {
  const page = (await ctx.deps.store.entities.statusPage.get({ statusPageId }).go({ consistent: true })).data;
  if (!page) throw notFound('Status page');
  await authorize(ctx.deps, ctx.actor, page.workspaceId, minimum, 'Status page');
  return page;
}
