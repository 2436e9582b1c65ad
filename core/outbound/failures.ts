import type { OutboundFailureReason } from './types.js';

/** Maps what a connector threw to a failure reason; network trouble is data, never an exception. */

const DNS_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'ENODATA', 'ESERVFAIL']);

// OpenSSL verification results Node reports as `code` (see tls `err.code` docs), besides the
// ERR_TLS_* / ERR_SSL_* families.
const TLS_CODES: ReadonlySet<string> = new Set([
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'HOSTNAME_MISMATCH',
]);

export type ClassifiedFailure = { readonly failureReason: OutboundFailureReason; readonly message: string };

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

export function classifyNetworkError(error: unknown): ClassifiedFailure {
  const code = codeOf(error);
  const detail = error instanceof Error ? error.message : String(error);
  const message = code === undefined ? detail : `${code}: ${detail}`;
  if (code !== undefined && DNS_CODES.has(code)) return { failureReason: 'DNS_ERROR', message };
  if (code !== undefined && (TLS_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_'))) {
    return { failureReason: 'TLS_ERROR', message };
  }
  return { failureReason: 'CONNECTION_ERROR', message };
}
