import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppEnv } from '../../http/env.js';
import { clientIp } from '../../http/clientIp.js';
import { HttpError } from '../../http/errors.js';
import { consumeRateLimit, enforce } from '../../http/rateLimit.js';
import type { BroadcastEvent, Broadcaster } from '../../ports/index.js';
import { admitStream, STREAM_LIMITS, type StreamRegistry } from '../../http/streamLimits.js';
import { STATUS_KEEP_ALIVE_MS, STATUS_STREAM_CONNECTION_LIMIT, STATUS_STREAM_EVENTS, statusPageChannel } from '../events.js';
import { memberViewer, requireAccess, snapshotBySlug } from './access.js';
import { bearerToken } from '../../auth/middleware.js';

/** A viewer that stops reading loses events past this backlog instead of growing memory. */
const MAX_BACKLOG = 100;

type Hub = Broadcaster & { subscribe(listener: (event: BroadcastEvent) => void): () => void; streams: StreamRegistry };
const isHub = (broadcaster: Broadcaster): broadcaster is Hub =>
  typeof (broadcaster as Partial<Hub>).subscribe === 'function' && typeof (broadcaster as Partial<Hub>).streams === 'object';
const streamed: ReadonlySet<string> = new Set(STATUS_STREAM_EVENTS);

/**
 * `GET /public/status/:slug/events`: the page's live events as server-sent events
 * (`component.status_changed`, `announcement.created`, `announcement.updated`; `data` the event's
 * JSON) and a keep-alive comment every 15 s. Who may listen is decided at connect with the page
 * JSON's rules (PRIVATE 404 but to members, PASSWORD_PROTECTED 401 without a page session), and
 * the open-stream caps and idle bound of core/streams/limits.ts hold. The events come from the
 * page's channel, where the snapshot rebuild's outbox puts each change once.
 */
export async function statusEvents(c: Context<AppEnv>, slug: string): Promise<Response> {
  const { deps } = c.var;
  enforce(await consumeRateLimit(deps, STATUS_STREAM_CONNECTION_LIMIT, `ip:${clientIp(c)}`));
  const snapshot = await requireAccess(c, deps, await snapshotBySlug(deps, slug), deps.clock.now());
  const broadcaster = deps.broadcaster;
  if (!isHub(broadcaster)) throw new HttpError('NOT_FOUND', 'This deployment serves the status stream over WebSocket (?stream=status)');
  const channel = statusPageChannel(snapshot.page.id);
  // Over the per-address cap this is a 429 with Retry-After; a stricter page (closePageStreams) ends it.
  // A member let in by access token (a PRIVATE page, or a password page without its session) is
  // counted as that user and ends with their session or membership, as their signal streams do.
  const viewer = snapshot.page.visibility === 'PUBLIC' ? undefined : await memberViewer(deps, snapshot, bearerToken(c), deps.clock.now());
  const admission = admitStream(broadcaster.streams, { address: clientIp(c), statusPageId: String(snapshot.page.id), userId: viewer?.userId, sessionId: viewer?.sessionId });
  const openedAt = deps.clock.now().getTime();
  c.header('Cache-Control', 'no-store');
  return streamSSE(c, async (stream) => {
    let backlog = 0;
    let writing: Promise<void> = Promise.resolve();
    const send = (write: () => Promise<unknown>) => {
      if (backlog >= MAX_BACKLOG) return;
      backlog++;
      writing = writing
        .then(write)
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => backlog--);
    };
    let end: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => (end = resolve));
    stream.onAbort(() => end());
    admission.onClose(() => end());
    const unsubscribe = broadcaster.subscribe((event) => {
      if (event.channel === channel && streamed.has(event.type)) send(() => stream.writeSSE({ event: event.type, data: JSON.stringify(event.data) }));
    });
    // An anonymous client cannot send on SSE, so its stream is idle by nature: it ends after the
    // idle bound and EventSource reconnects, passing the connect checks (and the caps) again.
    const keepAlive = setInterval(() => {
      if (deps.clock.now().getTime() - openedAt >= STREAM_LIMITS.anonymousIdleSeconds * 1000) end();
      else send(() => stream.write(': keep-alive\n\n'));
    }, STATUS_KEEP_ALIVE_MS);
    keepAlive.unref();
    send(() => stream.write(': connected\n\n'));
    await ended;
    admission.release();
    clearInterval(keepAlive);
    unsubscribe();
  });
}
