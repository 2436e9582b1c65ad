import { authorize } from '../auth/authorize.js';
import type { Ctx } from '../context.js';
import { HttpError } from '../http/errors.js';
import type { CheckItem } from '../store/entities/check.js';
import { softDeleteCheck } from './lifecycle.js';
import { pauseCheck, resumeCheck } from './pause.js';
import { checksByIds } from './repository.js';
import type { CheckBulkBody } from './schema.js';

export type BulkResult = { id: number; ok: boolean; error: { code: string; message: string } | null };

/** Checks acted on at once: each is a few conditional writes and their effects. */
const PARALLEL = 10;

/**
 * `POST /checks/bulk`: pause, resume or delete up to 100 checks of one workspace. The role is the
 * single-check routes' (MEMBER), judged once for the workspace before anything is written, so a
 * read-only member changes nothing. Each id then succeeds or fails on its own, in the order given:
 * an id that is unknown, deleted or in another workspace is that item's NOT_FOUND, exactly as
 * `GET /checks/:id` would answer it, and never says which of the three it was.
 */
export async function bulkChecks(ctx: Ctx, body: CheckBulkBody): Promise<BulkResult[]> {
  await authorize(ctx.deps, ctx.actor, body.workspaceId, 'MEMBER', 'Workspace');
  const found = new Map((await checksByIds(ctx.deps, body.ids)).filter((check) => check.workspaceId === body.workspaceId).map((check) => [check.checkId, check]));
  const results: BulkResult[] = [];
  for (let start = 0; start < body.ids.length; start += PARALLEL) {
    results.push(...(await Promise.all(body.ids.slice(start, start + PARALLEL).map((id) => actOn(ctx, body.action, id, found.get(id))))));
  }
  return results;
}

async function actOn(ctx: Ctx, action: CheckBulkBody['action'], id: number, check: CheckItem | undefined): Promise<BulkResult> {
  if (!check) return { id, ok: false, error: { code: 'NOT_FOUND', message: 'Check not found' } };
  const opts = { cause: 'USER' as const, now: ctx.deps.clock.now() };
  try {
    if (action === 'pause') await pauseCheck(ctx.deps, check, opts);
    else if (action === 'resume') await resumeCheck(ctx.deps, check, opts);
    else await softDeleteCheck(ctx.deps, check);
    return { id, ok: true, error: null };
  } catch (err) {
    // The single-check route's answer for this id (e.g. deleted a moment ago: 404); anything else is a fault.
    if (err instanceof HttpError) return { id, ok: false, error: { code: err.code, message: err.message } };
    throw err;
  }
}
