import { maskHeaderValues } from '../auth/mask.js';
import { z } from '@hono/zod-openapi';
import { badRequest } from '../http/errors.js';
import { zodDetails } from '../http/router.js';

/**
 * The HTTP probe configuration of an outbound check: the dashboard's outbound field set and the
 * Integration API's `config` object share these bounds and defaults (docs/guide/probes.md). The probe runner reads a stored config back through `readOutboundConfig`.
 */

export const PROBE_REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-1'] as const;
export type ProbeRegion = (typeof PROBE_REGIONS)[number];
export const OUTBOUND_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH'] as const;

export const MAX_CUSTOM_HEADERS = 10;
const MAX_HEADER_NAME = 256;
const MAX_HEADER_VALUE = 4096;
// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// What Node's validateHeaderValue accepts: no control characters except tab, nothing above 0xff.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
// Framing and routing belong to the probe (core/outbound refuses them too): a stored Host or
// Content-Length would describe a request other than the one the SSRF guard approved.
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect']);

const ProbeUrl = z
  .string()
  .max(2048)
  .refine((value) => /^https?:\/\//i.test(value), 'must start with http:// or https://')
  .refine((value) => URL.canParse(value), 'is not a valid URL');

const CustomHeaders = z
  .record(z.string(), z.string())
  .superRefine((headers, ctx) => {
    const entries = Object.entries(headers);
    if (entries.length > MAX_CUSTOM_HEADERS) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_CUSTOM_HEADERS} headers` });
    }
    const seen = new Set<string>();
    for (const [name, value] of entries) {
      const lower = name.toLowerCase();
      if (name.length === 0 || name.length > MAX_HEADER_NAME || !HEADER_NAME.test(name)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'is not a valid header name' });
      } else if (RESERVED_HEADERS.has(lower)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'may not be set on a probe' });
      } else if (seen.has(lower)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'is given twice (header names are case-insensitive)' });
      }
      seen.add(lower);
      if (value.length > MAX_HEADER_VALUE || !HEADER_VALUE.test(value)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'has an invalid header value' });
      }
    }
  })
  .openapi({ description: `At most ${MAX_CUSTOM_HEADERS} request headers sent with each probe.` });

const Regions = z
  .array(z.enum(PROBE_REGIONS))
  .min(1)
  .max(PROBE_REGIONS.length)
  .refine((regions) => new Set(regions).size === regions.length, 'regions must not repeat')
  .openapi({ description: 'Regions to probe from; omitted: the deployment home region.' });

/** Each field with its bounds and no default: the patch schema is built from these. */
const fields = {
  url: ProbeUrl,
  method: z.enum(OUTBOUND_METHODS),
  customHeaders: CustomHeaders,
  timeoutMs: z.number().int().min(1000).max(15000),
  expectedStatusMin: z.number().int().min(100).max(599),
  expectedStatusMax: z.number().int().min(100).max(599),
  followRedirects: z.boolean(),
  maxRedirects: z.number().int().min(0).max(3),
  blockHttpDowngrade: z.boolean(),
  failAfterConsecutive: z.number().int().min(1).max(10),
  resolveAfterConsecutiveSuccess: z.number().int().min(1).max(10),
  latencyWarnMs: z.number().int().min(1).max(60_000),
  sslExpiryWarnDays: z.number().int().min(1).max(365),
  regions: Regions,
};

export const OUTBOUND_FIELD_NAMES = Object.keys(fields) as (keyof typeof fields)[];

const statusRangeOrdered = (config: { expectedStatusMin: number; expectedStatusMax: number }, ctx: z.RefinementCtx) => {
  if (config.expectedStatusMin > config.expectedStatusMax) {
    ctx.addIssue({ code: 'custom', path: ['expectedStatusMin'], message: 'must not exceed expectedStatusMax' });
  }
};

/** The shape with defaults applied, before the cross-field rule (dashboard bodies reuse it). */
export const outboundShape = {
  url: fields.url,
  method: fields.method.default('GET'),
  customHeaders: fields.customHeaders.optional(),
  timeoutMs: fields.timeoutMs.default(8000),
  expectedStatusMin: fields.expectedStatusMin.default(200),
  expectedStatusMax: fields.expectedStatusMax.default(399),
  followRedirects: fields.followRedirects.default(true),
  maxRedirects: fields.maxRedirects.default(3),
  blockHttpDowngrade: fields.blockHttpDowngrade.default(true),
  failAfterConsecutive: fields.failAfterConsecutive.default(3),
  resolveAfterConsecutiveSuccess: fields.resolveAfterConsecutiveSuccess.default(2),
  latencyWarnMs: fields.latencyWarnMs.nullable().optional(),
  sslExpiryWarnDays: fields.sslExpiryWarnDays.default(14),
  regions: fields.regions.optional(),
};

export const OutboundConfig = z.strictObject(outboundShape).superRefine(statusRangeOrdered).openapi('HttpProbeConfig');
export type OutboundConfig = z.output<typeof OutboundConfig>;

/** A partial update: absent fields keep their value, `null` clears an optional one. */
export const OutboundConfigPatch = z
  .strictObject({
    url: fields.url.optional(),
    method: fields.method.optional(),
    customHeaders: fields.customHeaders.nullable().optional(),
    timeoutMs: fields.timeoutMs.optional(),
    expectedStatusMin: fields.expectedStatusMin.optional(),
    expectedStatusMax: fields.expectedStatusMax.optional(),
    followRedirects: fields.followRedirects.optional(),
    maxRedirects: fields.maxRedirects.optional(),
    blockHttpDowngrade: fields.blockHttpDowngrade.optional(),
    failAfterConsecutive: fields.failAfterConsecutive.optional(),
    resolveAfterConsecutiveSuccess: fields.resolveAfterConsecutiveSuccess.optional(),
    latencyWarnMs: fields.latencyWarnMs.nullable().optional(),
    sslExpiryWarnDays: fields.sslExpiryWarnDays.optional(),
    regions: fields.regions.nullable().optional(),
  })
  .openapi('HttpProbeConfigPatch');
export type OutboundConfigPatch = z.output<typeof OutboundConfigPatch>;

/** What responses show: every default filled in, regions resolved to where probes really run. */
export const OutboundConfigView = z
  .object({
    url: z.string(),
    method: z.enum(OUTBOUND_METHODS),
    customHeaders: z.record(z.string(), z.string()),
    timeoutMs: z.number().int(),
    expectedStatusMin: z.number().int(),
    expectedStatusMax: z.number().int(),
    followRedirects: z.boolean(),
    maxRedirects: z.number().int(),
    blockHttpDowngrade: z.boolean(),
    failAfterConsecutive: z.number().int(),
    resolveAfterConsecutiveSuccess: z.number().int(),
    latencyWarnMs: z.number().int().nullable(),
    sslExpiryWarnDays: z.number().int(),
    regions: z.array(z.enum(PROBE_REGIONS)),
  })
  .openapi('HttpProbeConfigView');
export type OutboundConfigView = z.output<typeof OutboundConfigView>;

/** Applies a patch to a stored config; the caller re-validates the result with OutboundConfig. */
export function mergeOutboundConfig(current: OutboundConfig, patch: OutboundConfigPatch): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/**
 * Validates a whole config (defaults applied) or throws the API's 400 with field details, paths
 * prefixed with `at` (for example `config`). Cleared optional fields are dropped, not stored as null.
 */
export function parseOutboundConfig(raw: unknown, at?: string): OutboundConfig {
  const parsed = OutboundConfig.safeParse(raw);
  if (!parsed.success) {
    const details = zodDetails(parsed.error).map((d) => ({ ...d, path: at ? `${at}.${d.path}` : d.path }));
    throw badRequest(`Validation failed: ${details[0]?.path ?? at ?? 'config'}: ${details[0]?.message ?? 'invalid'}`, details);
  }
  const config = { ...parsed.data };
  if (config.latencyWarnMs === null) delete config.latencyWarnMs;
  return config;
}

/** The stored config, or null when it is missing or no longer valid (an inconsistent check). */
export function readOutboundConfig(stored: unknown): OutboundConfig | null {
  const parsed = OutboundConfig.safeParse(stored);
  return parsed.success ? parsed.data : null;
}

/** No regions configured: probes run from the deployment's home region. */
export function effectiveRegions(config: Pick<OutboundConfig, 'regions'>, homeRegion: ProbeRegion): ProbeRegion[] {
  return config.regions && config.regions.length > 0 ? [...config.regions] : [homeRegion];
}

/** `headerValues` false (callers below MEMBER): header names only, values masked. */
export function toOutboundView(config: OutboundConfig, homeRegion: ProbeRegion, headerValues: boolean): OutboundConfigView {
  const headers = config.customHeaders ?? {};
  return {
    url: config.url,
    method: config.method,
    customHeaders: headerValues ? headers : maskHeaderValues(headers),
    timeoutMs: config.timeoutMs,
    expectedStatusMin: config.expectedStatusMin,
    expectedStatusMax: config.expectedStatusMax,
    followRedirects: config.followRedirects,
    maxRedirects: config.maxRedirects,
    blockHttpDowngrade: config.blockHttpDowngrade,
    failAfterConsecutive: config.failAfterConsecutive,
    resolveAfterConsecutiveSuccess: config.resolveAfterConsecutiveSuccess,
    latencyWarnMs: config.latencyWarnMs ?? null,
    sslExpiryWarnDays: config.sslExpiryWarnDays,
    regions: effectiveRegions(config, homeRegion),
  };
}
