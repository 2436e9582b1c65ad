import type { Deps } from '../../deps.js';
import type { StatusSubscriberItem } from '../../store/entities/statusSubscriber.js';
import { singleLine } from '../render/sanitize.js';

/** The links a subscriber holds: `<subscriberId>.<secret>` tokens under the page's public path. */
const base = (deps: Deps, slug: string) => `${deps.config.publicUrl}/api/public/status/${encodeURIComponent(slug)}`;
export const unsubscribeToken = (s: Pick<StatusSubscriberItem, 'subscriberId' | 'unsubscribeKey'>): string => `${s.subscriberId}.${s.unsubscribeKey}`;
export const unsubscribeUrl = (deps: Deps, slug: string, s: Pick<StatusSubscriberItem, 'subscriberId' | 'unsubscribeKey'>): string =>
  `${base(deps, slug)}/unsubscribe?token=${encodeURIComponent(unsubscribeToken(s))}`;
export const confirmUrl = (deps: Deps, slug: string, token: string): string => `${base(deps, slug)}/subscriptions/confirm?token=${encodeURIComponent(token)}`;

/** RFC 8058 one-click unsubscribe: mail clients POST `List-Unsubscribe=One-Click` to the URL. */
export const listUnsubscribeHeaders = (url: string): Record<string, string> => ({
  'List-Unsubscribe': `<${url}>`,
  'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
});

/** `j***@example.com`: enough to recognise an address, not to harvest it. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}

/** One line for a mail header or subject: no control characters (no header injection) or bidi overrides, bounded. */
export const oneLine = (value: string, max = 200): string => singleLine(value, max);
