import type { Ctx } from '../context.js';
import { badRequest } from '../http/errors.js';
import { walkChecks } from '../store/checkLists.js';
import type { CheckItem } from '../store/entities/check.js';
import { listDashboardChecks, listScope } from './dashboard.js';
import type { CheckListQuery } from './schema.js';

/**
 * Refs a filtered page reads at most per request (then it answers what it found and a cursor).
 * At 10,000 checks a rare status takes ten requests to walk the workspace, each a few reads of
 * 100 refs and a BatchGetItem per 100 checks, instead of one request reading all 10,000.
 */
export const FILTER_READ_BUDGET = 1_000;

export type CheckListAnswer = {
  items: CheckItem[];
  total: number | null;
  page: number;
  itemCount: number;
  pageCount: number | null;
  limit: number;
  nextCursor: string | null;
};

/**
 * `GET /checks`: a numbered page (the spec's envelope, exact total) when no filter is given,
 * otherwise a cursor page: the scope's checks walked in id order from the cursor, matched on
 * name, status and type. Both answer `nextCursor`, so a client may go on by cursor from page 1.
 */
export async function findDashboardChecks(ctx: Ctx, query: CheckListQuery, budget = FILTER_READ_BUDGET): Promise<CheckListAnswer> {
  const filtered = query.q !== undefined || query.status !== undefined || query.checkType !== undefined || query.cursor !== undefined;
  if (!filtered) {
    const page = await listDashboardChecks(ctx, query);
    const last = page.items[page.items.length - 1];
    return { ...page, nextCursor: last !== undefined && page.page * page.limit < page.total ? String(last.checkId) : null };
  }
  if (query.page !== 1) {
    throw badRequest('A filtered or cursor list pages by cursor, not by page number', [
      { path: 'page', message: 'must be 1 (or absent) with q, status, checkType or cursor; pass nextCursor as cursor' },
    ]);
  }
  const scope = await listScope(ctx, query);
  const needle = query.q?.toLowerCase();
  const walk = await walkChecks(ctx.deps, scope, {
    afterId: query.cursor === undefined ? 0 : Number(query.cursor),
    mode: query.checkMode,
    wanted: query.limit,
    budget,
    matches: (check) =>
      (needle === undefined || check.name.toLowerCase().includes(needle)) &&
      (query.status === undefined || check.status === query.status) &&
      (query.checkType === undefined || check.checkType === query.checkType),
  });
  // From the start to the end in one request: every match is here, so the total is known.
  const whole = query.cursor === undefined && walk.stoppedAfter === undefined;
  return {
    items: walk.items,
    total: whole ? walk.items.length : null,
    page: 1,
    itemCount: walk.items.length,
    pageCount: whole ? 1 : null,
    limit: query.limit,
    nextCursor: walk.stoppedAfter === undefined ? null : String(walk.stoppedAfter),
  };
}
