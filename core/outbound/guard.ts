import { lookup } from 'node:dns/promises';
import { classifyAddress } from './addresses.js';
import type { PinnedTarget, Resolver } from './types.js';
import type { ParsedTarget } from './url.js';

/**
 * The SSRF decision, taken before any socket exists. A name is resolved exactly once here; the
 * address that passed is handed on as a PinnedTarget and the connector must use it instead of
 * looking the name up again (a second lookup is what DNS rebinding exploits).
 */

export type GuardDecision =
  | { readonly ok: true; readonly target: PinnedTarget }
  | { readonly ok: false; readonly failureReason: 'SSRF_BLOCKED' | 'DNS_ERROR'; readonly message: string };

export type GuardOptions = {
  readonly resolve: Resolver;
  readonly allowLoopback: boolean;
};

/** getaddrinfo, every answer, in the resolver's own order. */
export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

function errorCode(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === undefined ? error.message : `${code}: ${error.message}`;
  }
  return String(error);
}

export async function decideTarget(parsed: ParsedTarget, options: GuardOptions): Promise<GuardDecision> {
  const policy = { allowLoopback: options.allowLoopback };
  const { url, hostname, port } = parsed;

  // Node never calls `lookup` for a literal IP, so the literal itself is the thing to check.
  if (parsed.host.kind === 'ip') {
    const verdict = classifyAddress(parsed.host.address, policy);
    if (verdict.blocked) return { ok: false, failureReason: 'SSRF_BLOCKED', message: verdict.reason };
    return { ok: true, target: { url, hostname, address: parsed.host.address, family: verdict.family, port } };
  }

  let answers: readonly { address: string; family: number }[];
  try {
    answers = await options.resolve(hostname);
  } catch (error) {
    return { ok: false, failureReason: 'DNS_ERROR', message: `lookup of ${hostname} failed: ${errorCode(error)}` };
  }

  // One bad answer refuses the whole name: a client could otherwise be steered to it on retry.
  let pinned: PinnedTarget | undefined;
  for (const answer of answers) {
    const verdict = classifyAddress(answer.address, policy);
    if (verdict.blocked) {
      return { ok: false, failureReason: 'SSRF_BLOCKED', message: `${hostname} resolves to ${verdict.reason}` };
    }
    pinned ??= { url, hostname, address: answer.address, family: verdict.family, port };
  }
  if (pinned === undefined) {
    return { ok: false, failureReason: 'DNS_ERROR', message: `lookup of ${hostname} returned no address` };
  }
  return { ok: true, target: pinned };
}
