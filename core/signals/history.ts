import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { countQuery } from '../store/count.js';
import type { Ctx } from '../context.js';
import { authorize } from '../auth/authorize.js';
import { readCheckByToken } from '../checks/repository.js';
import { badRequest, HttpError } from '../http/errors.js';
import { envelope, type Page } from '../http/pagination.js';
import type { CheckItem } from '../store/entities/check.js';
import { isTokenShaped } from './ingest.js';
import { checkNotFound } from './ping.js';
import { toSignal } from './record.js';
import type { Signal } from './schema.js';

/** Re-exported for the routes that answered with it from here before the ping path moved it (ping.ts). */
export { checkNotFound };

/** The check behind a token, if the caller may see it; unknown and foreign tokens look the same. */
export async function loadCheckByToken(ctx: Ctx, token: string): Promise<CheckItem> {
  const check = isTokenShaped(token) ? await readCheckByToken(ctx.deps, token) : undefined;
  if (!check) throw checkNotFound();
  try {
    await authorize(ctx.deps, ctx.actor, check.workspaceId, 'VIEWER', 'Check');
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) throw checkNotFound();
    throw err;
  }
  return check;
}

export type HistoryQuery = { page: number; limit: number; startDate?: string | undefined; endDate?: string | undefined };

const EARLIEST = '1970-01-01T00:00:00.000Z';
const LATEST = '9999-12-31T23:59:59.999Z';

/**
 * A check's signals, newest first, between startDate and endDate (both inclusive). DynamoDB has no
 * offset, so page N reads the N * limit newest items; `total` comes from a COUNT query over the
 * same range. Expired signals (TTL, deleted lazily by AWS) are filtered out by both.
 */
export async function listSignals(ctx: Ctx, token: string, query: HistoryQuery): Promise<Page<Signal>> {
  const check = await loadCheckByToken(ctx, token);
  const start = query.startDate ? new Date(query.startDate) : undefined;
  const end = query.endDate ? new Date(query.endDate) : undefined;
  if (start && end && start.getTime() > end.getTime()) {
    throw badRequest('startDate must not be after endDate', [{ path: 'startDate', message: 'must not be after endDate' }]);
  }
  // The sort key continues past receivedAt with the signal id: the upper bound is the next millisecond.
  const upper = end ? new Date(end.getTime() + 1).toISOString() : LATEST;
  const nowSeconds = Math.floor(ctx.deps.clock.now().getTime() / 1000);
  const range = ctx.deps.store.entities.signal.query
    .byCheck({ checkId: check.checkId })
    .between({ receivedAt: start?.toISOString() ?? EARLIEST }, { receivedAt: upper })
    .where((attr, op) => op.gt(attr.expiresAt, nowSeconds));

  const wanted = query.page * query.limit;
  const [found, total] = await Promise.all([range.go({ order: 'desc', count: wanted }), countQuery(ctx.deps.store, range.params() as QueryCommandInput)]);
  const items = found.data.slice((query.page - 1) * query.limit, wanted).map(toSignal);
  return envelope(items, total, query.page, query.limit);
}
