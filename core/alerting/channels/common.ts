import { z } from '@hono/zod-openapi';
import { maskUrl } from '../../auth/mask.js';
import type { RenderableMessage } from './types.js';

const MAX_URL = 2048;

/** A provider URL that carries a credential (a webhook token in its path or query): https only. */
export const credentialUrl = () => z.url({ protocol: /^https$/, error: 'must be an https:// URL' }).max(MAX_URL);

/** The event's urgency, as the providers' colours and priorities read it. */
export type Urgency = 'P1' | 'P2' | 'P3' | 'P4' | 'resolved' | 'info';

/** Incident alerts carry their severity in `data.severity`; a resolve or an acknowledgement is news, not a page. */
export function urgencyOf(message: RenderableMessage): Urgency {
  if (message.type === 'incident.resolved') return 'resolved';
  if (message.type === 'incident.acknowledged') return 'info';
  const severity = message.data.severity;
  return severity === 'P1' || severity === 'P2' || severity === 'P3' || severity === 'P4' ? severity : 'info';
}

/** Bounded before escaping, so an escape sequence is never cut in half. */
export const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** A secret below ADMIN: enough to recognise it (its last four characters), never enough to use it. */
export const maskSecret = (secret: string): string => `…${secret.slice(-4)}`;

export const showUrl = (url: string | undefined, whole: boolean): string => (whole ? (url ?? '') : maskUrl(url ?? ''));

/** The acknowledge and resolve links the message carries, labelled, in a fixed order. */
export function actionLinks(message: RenderableMessage): { label: string; url: string }[] {
  const links: { label: string; url: string }[] = [];
  if (message.actions?.acknowledgeUrl) links.push({ label: 'Acknowledge', url: message.actions.acknowledgeUrl });
  if (message.actions?.resolveUrl) links.push({ label: 'Resolve', url: message.actions.resolveUrl });
  return links;
}
