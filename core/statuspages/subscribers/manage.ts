import { authorize } from '../../auth/authorize.js';
import { roleAtLeast } from '../../auth/roles.js';
import type { Ctx } from '../../context.js';
import type { Deps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import type { StatusSubscriberItem } from '../../store/entities/statusSubscriber.js';
import { loadStatusPage } from '../load.js';
import { maskEmail } from './links.js';
import { dropSubscriberQuota } from './quota.js';
import type { Subscriber } from './schema.js';
import { readSubscriber, removeSubscriber } from './subscribe.js';

export const pageSubscribers = async (deps: Deps, statusPageId: number): Promise<StatusSubscriberItem[]> =>
  (await deps.store.entities.statusSubscriber.query.byPage({ statusPageId }).go({ pages: 'all' })).data.filter((s) => s.statusPageId === statusPageId);

function toSubscriber(s: StatusSubscriberItem, full: boolean): Subscriber {
  const webhook = s.webhookUrl ?? null;
  return {
    id: s.subscriberId,
    statusPageId: s.statusPageId,
    channel: s.channel,
    status: s.state,
    email: s.email === undefined ? null : full ? s.email : maskEmail(s.email),
    webhookUrl: webhook === null || full ? webhook : new URL(webhook).origin,
    componentIds: s.componentIds,
    createdAt: s.createdAt,
    confirmedAt: s.confirmedAt ?? null,
    lastError: s.lastError ?? null,
  };
}

/** `GET /status-pages/:id/subscribers`: every member sees the list; addresses in full from ADMIN up. */
export async function listSubscribers(ctx: Ctx, statusPageId: number): Promise<Subscriber[]> {
  const page = await loadStatusPage(ctx, statusPageId);
  const { role } = await authorize(ctx.deps, ctx.actor, page.workspaceId, 'VIEWER', 'Status page');
  const full = roleAtLeast(role, 'ADMIN');
  return (await pageSubscribers(ctx.deps, statusPageId)).sort((a, b) => a.subscriberId - b.subscriberId).map((s) => toSubscriber(s, full));
}

/** `DELETE /status-pages/:id/subscribers/:subscriberId` (ADMIN): a subscriber of another page is 404. */
export async function deleteSubscriber(ctx: Ctx, statusPageId: number, subscriberId: number): Promise<void> {
  await loadStatusPage(ctx, statusPageId, 'ADMIN');
  const subscriber = await readSubscriber(ctx.deps, subscriberId);
  if (!subscriber || subscriber.statusPageId !== statusPageId) throw notFound('Subscriber');
  await removeSubscriber(ctx.deps, subscriber);
}

/** A deleted page takes its subscribers with it. */
export async function deletePageSubscribers(deps: Deps, statusPageId: number): Promise<void> {
  for (const subscriber of await pageSubscribers(deps, statusPageId)) await removeSubscriber(deps, subscriber);
  await dropSubscriberQuota(deps, statusPageId);
}
