import { authenticateSession } from '../auth/middleware.js';
import { redeemStreamTicket } from '../auth/streamTickets.js';
import type { Deps } from '../deps.js';
import { HttpError, badRequest, errorBody } from '../http/errors.js';
import { STATUS_STREAM_CONNECTION_LIMIT, statusPageChannel } from '../statuspages/events.js';
import { statusStreamAccess, type StreamViewer } from '../statuspages/public/access.js';
import { consumeRateLimit, enforce } from '../http/rateLimit.js';
import { ALL_TOPICS, type Subscription } from '../ports/index.js';
import { STREAM_CONNECTION_LIMIT } from '../signals/stream.js';
import { resolveSignalScope, type SignalScope } from '../signals/streamScope.js';
import { ClientMessage, ConnectQuery, PONG, type StatusConnectQuery } from './schema.js';

export { STATUS_STREAM_CONNECTION_LIMIT };

/** Events of one status page travel on its channel (published by core/statuspages through the outbox). */
export { statusPageChannel };

/** What an accepted connection hears, and whose it is (so a change of that user's access ends it). */
export type StreamScope =
  | { stream: 'signals'; userId: number; sessionId: string | undefined; subscriptions: Subscription[]; signal: SignalScope }
  /** `userId`/`sessionId`: the member a non-public page let in by access token (none for anonymous viewers). */
  | { stream: 'status'; userId: number | undefined; sessionId: string | undefined; subscriptions: Subscription[]; statusPageId: string };

/**
 * Decides whether a status page may be streamed to this caller, with the same visibility rules as
 * the public JSON (`GET /public/status/:slug`): a public page to anyone, a password-protected one
 * with a page session (401 without), a private one never. Answers the page's id or throws.
 */
export type StatusPageAccess = (deps: Deps, query: Omit<StatusConnectQuery, 'stream'>) => Promise<{ statusPageId: string; viewer?: StreamViewer | undefined }>;

export type ConnectOptions = {
  /** The visibility rule of status streams; core/statuspages' own unless a test stands in for it. */
  statusPages?: StatusPageAccess;
};

/**
 * The one connect path of both WebSocket transports (API Gateway `$connect`, the local upgrade):
 * validates the query, authenticates (401), applies the 30-per-60-s limit (429), and decides what
 * the connection may hear exactly as the SSE paths do (`resolveSignalScope`). Throws `HttpError`.
 */
export async function connectStream(deps: Deps, rawQuery: Record<string, string | undefined>, client: { ip: string }, options: ConnectOptions = {}): Promise<StreamScope> {
  const parsed = ConnectQuery.safeParse(rawQuery);
  if (!parsed.success) {
    throw badRequest(
      'Invalid stream connect query',
      parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    );
  }
  const query = parsed.data;
  if (query.stream === 'signals') {
    if (query.ticket !== undefined && query.access_token !== undefined) {
      throw badRequest('Invalid stream connect query', [{ path: 'ticket', message: 'give ticket or access_token, not both' }]);
    }
    const claims = query.ticket !== undefined ? await redeemStreamTicket(deps, query.ticket) : await authenticateSession(deps, query.access_token);
    enforce(await consumeRateLimit(deps, STREAM_CONNECTION_LIMIT, `user:${claims.userId}`));
    const signal = await resolveSignalScope({ deps, actor: { kind: 'user', userId: claims.userId, email: claims.email, sessionId: claims.familyId } }, query.token);
    return { stream: 'signals', userId: signal.userId, sessionId: claims.familyId, subscriptions: signal.subscriptions, signal };
  }
  enforce(await consumeRateLimit(deps, STATUS_STREAM_CONNECTION_LIMIT, `ip:${client.ip}`));
  const { statusPageId, viewer } = await (options.statusPages ?? statusStreamAccess)(deps, {
    slug: query.slug,
    ...(query.session === undefined ? {} : { session: query.session }),
  });
  return {
    stream: 'status',
    userId: viewer?.userId,
    sessionId: viewer?.sessionId,
    subscriptions: [{ channel: statusPageChannel(statusPageId), topic: ALL_TOPICS }],
    statusPageId,
  };
}

/** The answer to a client's message: a pong, or an error event for anything else (never a close). */
export function answerClientMessage(raw: string): string {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return errorEvent(400, 'Messages are JSON');
  }
  return ClientMessage.safeParse(body).success ? PONG : errorEvent(400, 'Unknown action; send {"action":"ping"}');
}

export const errorEvent = (statusCode: number, message: string): string => JSON.stringify({ event: 'error', data: { statusCode, message } });

/** An HttpError as the status and spec error body a refused connect answers with; anything else rethrows. */
export function refusal(err: unknown): { status: number; body: string; headers: Record<string, string> } {
  if (!(err instanceof HttpError)) throw err;
  return {
    status: err.status,
    body: JSON.stringify(errorBody(err.status, err.message, err.code, err.details)),
    headers: err.headers ?? {},
  };
}
