import { timingSafeEqual } from 'node:crypto';
import { randomToken, sha256Hex } from '../auth/secrets.js';
import type { Deps } from '../deps.js';
import { mailUnavailable, notFound } from '../http/errors.js';
import type { RateLimitRule } from '../http/rateLimit.js';
import type { AlertChannelItem } from '../store/entities/alertChannel.js';
import { singleLine } from '../statuspages/render/sanitize.js';

/**
 * An ADMIN may type any address into an e-mail channel, so the address must say yes before it
 * receives anything: a link mailed to it carries `<channelId>.<secret>` (only the secret's
 * SHA-256 is stored). A channel holding a token hash is unconfirmed; channels from before this
 * rule hold none and keep working.
 */
export const awaitingConfirmation = (channel: Pick<AlertChannelItem, 'type' | 'confirmTokenHash'>): boolean => channel.type === 'EMAIL' && channel.confirmTokenHash !== undefined;

/** A PATCH that mails the link again reaches a user-chosen address: a few per channel per hour, like test sends, not a mailing cannon. */
export const CONFIRMATION_RESEND_LIMIT: RateLimitRule = { name: 'channel-confirm', limit: 5, windowSeconds: 3600 };

export function newConfirmation(channelId: number): { token: string; confirmTokenHash: string } {
  const token = `${channelId}.${randomToken()}`;
  return { token, confirmTokenHash: sha256Hex(token) };
}

export async function mailConfirmation(deps: Deps, email: string, channelName: string, token: string): Promise<void> {
  const link = `${deps.config.publicUrl}/api/alert-channels/confirm/${token}`;
  await deps.mailer
    .send({
      to: email,
      subject: 'Confirm Vigil alerts to this address',
      text: `Someone set up the Vigil alert channel "${singleLine(channelName)}" to mail this address. To receive its alerts, open:\n${link}\n\nIgnore this mail and nothing will be sent to you.`,
    })
    .catch((err: unknown) => {
      throw mailUnavailable(err);
    });
}

/** Follows a confirmation link: 404 for anything but the channel's current token. */
export async function confirmEmailChannel(deps: Deps, token: string): Promise<void> {
  const channelId = Number(token.split('.')[0]);
  if (!Number.isSafeInteger(channelId) || channelId < 1) throw notFound('Confirmation');
  const channel = (await deps.store.entities.alertChannel.get({ channelId }).go({ consistent: true })).data;
  const stored = Buffer.from(channel?.confirmTokenHash ?? '');
  const given = Buffer.from(sha256Hex(token));
  if (!channel || stored.length !== given.length || !timingSafeEqual(stored, given)) throw notFound('Confirmation');
  await deps.store.entities.alertChannel
    .patch({ channelId })
    .set({ emailConfirmedAt: deps.clock.now().toISOString() })
    .remove(['confirmTokenHash'])
    .where((attr, op) => op.eq(attr.confirmTokenHash, channel.confirmTokenHash ?? ''))
    .go();
}
