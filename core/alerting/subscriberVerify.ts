import { randomToken } from '../auth/secrets.js';
import { guardedRequest } from '../outbound/index.js';
import type { EndpointVerifier } from '../statuspages/subscribers/webhook.js';
import { signWebhook } from './webhookSignature.js';

/**
 * A status page webhook subscriber proves it wants the deliveries (docs/guide/status-pages.md "Subscribing"): within
 * the subscribe request it gets a `subscription.verification` event, signed like every delivery
 * (Standard Webhooks, its own secret) and sent through the guarded outbound client, carrying a
 * random `challenge`; only a 2xx answer echoing it (the bare text, or JSON `{"challenge": ...}`)
 * makes the subscription ACTIVE, as Slack's URL check does.
 */
const VERIFICATION_TIMEOUT_MS = 5_000;

/** The challenge exchange: true only for a 2xx answer that echoes this request's challenge. */
export const verifySubscriberEndpoint: EndpointVerifier = async (deps, target, outbound) => {
  const challenge = randomToken(24);
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  const body = JSON.stringify({
    type: 'subscription.verification',
    timestamp: new Date(nowSeconds * 1000).toISOString(),
    data: { challenge, subscriberId: target.subscriberId, page: target.page },
  });
  const webhookId = `msg_verify_${randomToken(12)}`;
  const result = await guardedRequest(
    {
      url: target.url,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Vigil-Webhooks/1.0', ...signWebhook(target.secret, webhookId, nowSeconds, body) },
      body,
      timeoutMs: VERIFICATION_TIMEOUT_MS,
      followRedirects: false,
      maxRedirects: 0,
      blockHttpDowngrade: true,
      maxBodyBytes: 1024,
    },
    { allowLoopback: deps.config.probeAllowPrivate, ...outbound },
  );
  if (!result.ok || result.statusCode < 200 || result.statusCode >= 300) return false;
  return echoes(result.bodyText, challenge);
};

function echoes(text: string, challenge: string): boolean {
  if (text.trim() === challenge) return true;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && (parsed as { challenge?: unknown }).challenge === challenge;
  } catch {
    return false;
  }
}
