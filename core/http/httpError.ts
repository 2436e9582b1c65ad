import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/*
 * The API's one exception type, its code table and the one error handler, without zod: the ping
 * Lambda throws and answers these too, and its bundle must not carry the schema library.
 * core/http/errors.ts adds the OpenAPI schemas of the same body and re-exports all of this.
 */

/**
 * Machine-readable codes and the status each maps to. Queue consumers read the status too: the
 * incidents worker drops a message whose subject is gone (404) and retries on anything else.
 */
export const ErrorCodes = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  MALFORMED_JSON: 400,
  MULTIPLE_INCIDENT_TARGETS: 400,
  CHECK_TYPE_MISMATCH: 400,
  UNAUTHORIZED: 401,
  INVALID_GRANT: 401,
  TOKEN_EXPIRED: 401,
  FORBIDDEN: 403,
  PLAN_LIMIT_EXCEEDED: 403,
  CSRF_MISMATCH: 403,
  NOT_FOUND: 404,
  CHECK_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  SLUG_TAKEN: 409,
  DOMAIN_TAKEN: 409,
  INCIDENT_RESOLVED: 409,
  MAINTENANCE_WINDOW_IMMUTABLE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  CHECK_TYPE_NOT_SUPPORTED: 422,
  DOMAIN_NOT_VERIFIED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UPSTREAM_FAILED: 502,
  MAIL_UNAVAILABLE: 503,
  INCIDENT_OPENING: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ErrorCodes;

const statusNames: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** One field-level validation failure (the spec's `details[]`). */
export type ErrorDetail = { path: string; message: string };

/** The spec's error body, the one shape of every 4xx and 5xx (its OpenAPI schema is in errors.ts). */
export type ErrorBody = { statusCode: number; message: string; error: string; code?: string | undefined; details?: ErrorDetail[] | undefined };

/** The one exception type of the API. Its code decides the status. */
export class HttpError extends Error {
  readonly status: ContentfulStatusCode;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.status = ErrorCodes[code];
  }
}

export const notFound = (what = 'Resource'): HttpError => new HttpError('NOT_FOUND', `${what} not found`);
export const forbidden = (message = 'Insufficient permissions'): HttpError => new HttpError('FORBIDDEN', message);
export const unauthorized = (message = 'Missing or invalid credential'): HttpError => new HttpError('UNAUTHORIZED', message);
export const badRequest = (message: string, details?: ErrorDetail[]): HttpError => new HttpError('VALIDATION_ERROR', message, details);
/**
 * The mail service refused a mail a request had to send (a confirmation link). Neither the caller's
 * fault nor a bug: the verb left things so that the same request, sent again, mails the link.
 */
export const mailUnavailable = (cause: unknown): HttpError =>
  new HttpError('MAIL_UNAVAILABLE', 'The confirmation e-mail could not be sent; send the same request again in a minute', undefined, { 'Retry-After': '60' }, { cause });
export const conflict = (message: string, code: ErrorCode = 'CONFLICT'): HttpError => new HttpError(code, message);

export function errorBody(status: number, message: string, code?: string, details?: ErrorDetail[]): ErrorBody {
  const body: ErrorBody = { statusCode: status, message, error: statusNames[status] ?? 'Error' };
  if (code) body.code = code;
  if (details && details.length > 0) body.details = details;
  return body;
}

/** The single error handler: the spec's body for every failure, never a stack trace. */
export function handleError(err: unknown, c: Context): Response {
  if (err instanceof HttpError) {
    // A 5xx of our own is an outage the operator must see, not a mistake of the caller's.
    if (err.status >= 500) console.error(`answered ${err.status} ${err.code}`, err.cause ?? err.message);
    for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
    return c.json(errorBody(err.status, err.message, err.code, err.details), err.status);
  }
  const status = statusOf(err);
  if (status !== undefined && status >= 400 && status < 500) {
    const message = err instanceof Error && err.message ? err.message : (statusNames[status] ?? 'Bad Request');
    return c.json(errorBody(status, message, fallbackCode(status, message)), status as ContentfulStatusCode);
  }
  console.error('unhandled error', err);
  return c.json(errorBody(500, 'Internal server error', 'INTERNAL'), 500);
}

/** Hono's own exceptions carry no code; give them the one our own errors would have. */
function fallbackCode(status: number, message: string): ErrorCode | undefined {
  if (status === 400) return /json/i.test(message) ? 'MALFORMED_JSON' : 'BAD_REQUEST';
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE';
  return undefined;
}

/** Hono's own HTTPException (body limit, bad JSON in its validators) carries a status. */
function statusOf(err: unknown): number | undefined {
  if (typeof err === 'object' && err !== null && 'status' in err) {
    const status = (err as { status: unknown }).status;
    if (typeof status === 'number') return status;
  }
  return undefined;
}
