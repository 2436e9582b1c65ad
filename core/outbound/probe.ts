import { guardedRequest } from './request.js';
import { OUTBOUND_FAILURE_REASONS, type GuardedRequestDeps } from './types.js';

/** One run of an HTTP check: the guarded exchange plus the check's own idea of success. */

export const PROBE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH'] as const;
export type ProbeMethod = (typeof PROBE_METHODS)[number];

export const PROBE_FAILURE_REASONS = [...OUTBOUND_FAILURE_REASONS, 'UNEXPECTED_STATUS'] as const;
export type ProbeFailureReason = (typeof PROBE_FAILURE_REASONS)[number];

export type HttpProbeConfig = {
  readonly url: string;
  readonly method: ProbeMethod;
  /** At most 10 (the API schema enforces it; guardedRequest refuses more). */
  readonly customHeaders?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly expectedStatusMin: number;
  readonly expectedStatusMax: number;
  readonly followRedirects: boolean;
  readonly maxRedirects: number;
  readonly blockHttpDowngrade: boolean;
};

export type ProbeRunResult = {
  readonly ok: boolean;
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly failureReason: ProbeFailureReason | null;
  /** Expiry of the final hop's certificate (ISO 8601), for https targets that answered. */
  readonly sslExpiresAt: string | null;
};

export type ProbeDeps = GuardedRequestDeps;

export async function runProbe(config: HttpProbeConfig, deps: ProbeDeps = {}): Promise<ProbeRunResult> {
  const result = await guardedRequest(
    {
      url: config.url,
      method: config.method,
      headers: config.customHeaders ?? {},
      timeoutMs: config.timeoutMs,
      followRedirects: config.followRedirects,
      maxRedirects: config.maxRedirects,
      blockHttpDowngrade: config.blockHttpDowngrade,
    },
    deps,
  );
  if (!result.ok) {
    return {
      ok: false,
      statusCode: result.statusCode ?? null,
      latencyMs: result.latencyMs,
      failureReason: result.failureReason,
      sslExpiresAt: null,
    };
  }
  const expected = result.statusCode >= config.expectedStatusMin && result.statusCode <= config.expectedStatusMax;
  return {
    ok: expected,
    statusCode: result.statusCode,
    latencyMs: result.latencyMs,
    failureReason: expected ? null : 'UNEXPECTED_STATUS',
    sslExpiresAt: result.tlsCertValidTo?.toISOString() ?? null,
  };
}
