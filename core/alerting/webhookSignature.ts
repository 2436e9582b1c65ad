import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks (standardwebhooks.com) signing: `webhook-signature: v1,<base64 HMAC-SHA256>`
 * over `{id}.{timestamp}.{body}`, keyed with the base64-decoded part of a `whsec_` secret.
 */

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** The spec allows 24-64 bytes of key; 32 matches HMAC-SHA256's block-size guidance. */
const SECRET_BYTES = 32;
/** Receivers should refuse messages older or newer than this (replay window of the spec). */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

export const generateWebhookSecret = (): string => `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;

function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('webhook secret is empty');
  return key;
}

/** `v1,<base64>` for one secret. */
export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The three headers of one delivery. `id` must stay the same across retries of one message.
 * Several secrets (during rotation) give several space-separated signatures.
 */
export function signWebhook(secrets: string | readonly string[], id: string, timestampSeconds: number, body: string): WebhookHeaders {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': list.map((secret) => webhookSignature(secret, id, timestampSeconds, body)).join(' '),
  };
}

/** What a receiver does: a message is valid when one of its `v1` signatures matches within the tolerance window. */
export function verifyWebhook(
  secret: string,
  headers: Partial<Record<keyof WebhookHeaders, string | undefined>>,
  body: string,
  nowSeconds: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): boolean {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  const presented = headers['webhook-signature'];
  if (!id || !presented || !Number.isSafeInteger(timestamp)) return false;
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(webhookSignature(secret, id, timestamp, body));
  return presented.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
