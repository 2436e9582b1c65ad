import { z } from '@hono/zod-openapi';
import { SUBSCRIBER_CHANNELS, SUBSCRIBER_STATES } from '../../store/entities/statusSubscriber.js';

const id = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** `POST /public/status/:slug/subscribe` (spec "Public status endpoints"). */
export const SubscribeBody = z
  .discriminatedUnion('channel', [
    z.strictObject({ channel: z.literal('EMAIL'), email: z.string().trim().max(254).email(), componentIds: z.array(id).max(100).optional() }),
    z.strictObject({ channel: z.literal('WEBHOOK'), webhookUrl: z.string().max(2048), componentIds: z.array(id).max(100).optional() }),
  ])
  .openapi('StatusSubscribe');
export type SubscribeBody = z.infer<typeof SubscribeBody>;

export const PendingAnswer = z.object({ status: z.literal('PENDING_CONFIRMATION') }).openapi('SubscriptionPending');
export const WebhookAnswer = z
  .object({
    id,
    secret: z.string(),
    unsubscribeUrl: z.string(),
    status: z
      .enum(['ACTIVE', 'PENDING_VERIFICATION'])
      .describe(
        'ACTIVE when the endpoint echoed the `subscription.verification` challenge within this request; PENDING_VERIFICATION receives nothing (subscribe the same URL again to retry)',
      ),
  })
  .openapi('WebhookSubscription');
export const TokenQuery = z.object({ token: z.string().min(3).max(200) });

/** A subscriber on the dashboard: e-mail addresses masked and webhook URLs cut to their origin below ADMIN. */
export const Subscriber = z
  .object({
    id,
    statusPageId: id,
    channel: z.enum(SUBSCRIBER_CHANNELS),
    status: z.enum(SUBSCRIBER_STATES),
    email: z.string().nullable(),
    webhookUrl: z.string().nullable(),
    componentIds: z.array(id),
    createdAt: z.string(),
    confirmedAt: z.string().nullable(),
    lastError: z.string().nullable(),
  })
  .openapi('StatusSubscriber');
export type Subscriber = z.infer<typeof Subscriber>;
export const SubscriberIdParam = z.object({
  id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  subscriberId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
});
