import { z } from '@hono/zod-openapi';
import type { Deps } from '../../deps.js';
import type { AlertChannelItem } from '../../store/entities/alertChannel.js';
import { singleLine } from '../../statuspages/render/sanitize.js';
import type { OutgoingMessage, SendResult } from './providerPost.js';

export const SmsChannelConfig = z
  .strictObject({
    phoneNumber: z
      .string()
      .regex(/^\+[1-9]\d{6,14}$/, { error: 'must be an E.164 number: + then the country code and number, digits only (e.g. +447700900123)' })
      .describe('E.164. Below ADMIN only its last four digits show'),
  })
  .openapi('SmsChannelConfig');

export const SmsChannelView = z.object({ phoneNumber: z.string().describe('Whole for ADMIN and OWNER; below, the country code sign and the last four digits') });

/** A phone number reaches a person: below ADMIN it is recognisable, not dialable. */
export const viewSms = (ch: AlertChannelItem, whole: boolean) => ({ phoneNumber: whole ? (ch.phoneNumber ?? '') : `+…${(ch.phoneNumber ?? '').slice(-4)}` });

/** GSM 03.38: the basic set costs one unit of a 160-unit segment, the extension table two. */
const GSM_BASIC = new Set('@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà');
const GSM_EXTENSION = new Set('^{}\\[~]|€\f');

const isGsm = (text: string): boolean => [...text].every((ch) => GSM_BASIC.has(ch) || GSM_EXTENSION.has(ch));

/** Units of one segment the text takes: GSM septets, or UTF-16 code units once any character needs UCS-2. */
export function smsUnits(text: string): { units: number; perSegment: 160 | 70 } {
  if (isGsm(text)) return { units: [...text].reduce((n, ch) => n + (GSM_EXTENSION.has(ch) ? 2 : 1), 0), perSegment: 160 };
  return { units: text.length, perSegment: 70 };
}

/** Shortest the alert's words get to make room for the link: below that, the message takes two segments. */
const MIN_WORDS = 40;

/** `text` cut (at a character, never inside a surrogate pair) to `units`, ending in "..." (GSM-safe) when cut. */
function cutTo(text: string, units: number): string {
  if (smsUnits(text).units <= units) return text;
  let out = '';
  for (const ch of text) {
    if (smsUnits(`${out}${ch}...`).units > units) break;
    out += ch;
  }
  return `${out}...`;
}

/**
 * The text of an alert: its subject line and, when there is one, the acknowledge link, never
 * cut. The words are cut so the whole fits one segment (160 GSM characters, 70 once a character
 * needs UCS-2) when the link leaves room for at least MIN_WORDS; otherwise it takes two. SMS is
 * plain text: the line has no control characters or bidi overrides.
 */
export function smsText(message: OutgoingMessage): string {
  // "…" (a subject cut upstream) is no GSM character: it alone would make the text UCS-2, 70 a segment.
  const words = singleLine(`Vigil: ${message.subject}`, 2000).replace(/…/g, '...');
  const link = message.actions?.acknowledgeUrl;
  if (!link) return cutTo(words, smsUnits(words).perSegment);
  const whole = `${words}\n${link}`;
  const room = Math.max(MIN_WORDS, smsUnits(whole).perSegment - smsUnits(link).units - 1);
  return `${cutTo(words, room)}\n${link}`;
}

export async function sendSms(deps: Deps, channel: AlertChannelItem, message: OutgoingMessage): Promise<SendResult> {
  const to = channel.phoneNumber ?? '';
  try {
    await deps.sms.send({ to, text: smsText(message) });
    return { ok: true, statusCode: null, failureReason: null, message: `Text message sent to ${viewSms(channel, false).phoneNumber}`, retryAfterSeconds: null };
  } catch (err) {
    return { ok: false, statusCode: null, failureReason: 'SMS_ERROR', message: err instanceof Error ? err.message : String(err), retryAfterSeconds: null };
  }
}
