import { z } from '@hono/zod-openapi';
import type { Deps } from '../../deps.js';
import { guardedRequest, retryAfterSeconds, type GuardedRequestDeps } from '../../outbound/index.js';

/**
 * What a sender in this folder reads of a `ChannelMessage` and answers as a `DeliveryResult`
 * (core/alerting/channelsDelivery.ts, which imports the senders: declared here by shape, so the
 * imports run one way).
 */
export type OutgoingMessage = {
  id: string;
  type: string;
  subject: string;
  text: string;
  data: Record<string, unknown>;
  actions?: { acknowledgeUrl?: string | undefined; resolveUrl?: string | undefined } | undefined;
};
export type SendResult = { ok: boolean; statusCode: number | null; failureReason: string | null; message: string; retryAfterSeconds: number | null };

const PROVIDER_TIMEOUT_MS = 10_000;
const USER_AGENT = 'Vigil-Alerts/1.0';

/** The keys travel in the body, so a provider API other than the public one is https too. */
export const ProviderApiBaseUrl = z
  .url({ protocol: /^https$/, error: 'must be an https:// URL' })
  .max(2048)
  .refine((url) => !/[?#]/.test(url), { error: 'must have no query or fragment' });

/** A provider's public API origin unless the channel names another (a self-hosted one, a test receiver). */
export const providerUrl = (apiBaseUrl: string | undefined, fallback: string, path: string): string => `${(apiBaseUrl ?? fallback).replace(/\/+$/, '')}${path}`;

/**
 * One POST to a provider's API through the SSRF guard (a configurable base URL is a user-chosen
 * address like any webhook): no redirects, a bounded answer, and Retry-After read for the retry
 * schedule, as SLACK and WEBHOOK are sent. Never throws for the provider's behaviour.
 */
export async function postToProvider(deps: Deps, request: { url: string; contentType: string; body: string }, outbound: GuardedRequestDeps): Promise<SendResult> {
  const result = await guardedRequest(
    {
      url: request.url,
      method: 'POST',
      headers: { 'content-type': request.contentType, 'user-agent': USER_AGENT },
      body: request.body,
      timeoutMs: PROVIDER_TIMEOUT_MS,
      followRedirects: false,
      maxRedirects: 0,
      blockHttpDowngrade: true,
      maxBodyBytes: 4096,
    },
    { allowLoopback: deps.config.probeAllowPrivate, ...outbound },
  );
  if (!result.ok) return { ok: false, statusCode: result.statusCode ?? null, failureReason: result.failureReason, message: result.message, retryAfterSeconds: null };
  const ok = result.statusCode >= 200 && result.statusCode < 300;
  return {
    ok,
    statusCode: result.statusCode,
    failureReason: ok ? null : 'UNEXPECTED_STATUS',
    message: ok ? `Delivered (HTTP ${result.statusCode})` : `The endpoint answered HTTP ${result.statusCode}`,
    retryAfterSeconds: retryAfterSeconds(result.headers, deps.clock.now()),
  };
}

/** The incident a message is about (`data.incident.id` of composeAlert), if it is about one. */
export function incidentIdOf(data: Record<string, unknown>): number | undefined {
  const incident = data.incident;
  if (typeof incident !== 'object' || incident === null) return undefined;
  const id = (incident as { id?: unknown }).id;
  return typeof id === 'number' && Number.isInteger(id) ? id : undefined;
}

/** The incident events that say an incident needs someone (as opposed to its acknowledgement or end). */
export const RAISING_EVENTS: ReadonlySet<string> = new Set(['incident.opened', 'incident.escalated', 'incident.severity_changed']);

/** `data.severity` of an incident or warning message, when it is one of Vigil's. */
export function severityOf(data: Record<string, unknown>): 'P1' | 'P2' | 'P3' | 'P4' | undefined {
  const severity = data.severity;
  return severity === 'P1' || severity === 'P2' || severity === 'P3' || severity === 'P4' ? severity : undefined;
}
