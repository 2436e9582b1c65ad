import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Actor } from '../context.js';
import type { AppEnv } from '../http/env.js';
import { clientIp } from '../http/clientIp.js';
import { admitStream } from '../http/streamLimits.js';
import { HttpError, unauthorized } from '../http/errors.js';
import { consumeRateLimit, enforce } from '../http/rateLimit.js';
import { hears } from '../ports/index.js';
import { canSubscribe, toStreamEvent } from './streamEvents.js';
import { resolveSignalScope, signalScopeStillHolds } from './streamScope.js';

/** Spec Limits: 30 new signal-stream connections per 60 s (per user). */
export const STREAM_CONNECTION_LIMIT = { name: 'signal-stream', limit: 30, windowSeconds: 60 };
export const KEEP_ALIVE_MS = 15_000;
/** A viewer that stops reading loses events past this backlog instead of growing memory. */
const MAX_BACKLOG = 100;

/**
 * `GET /signals/sse`: the signal stream as server-sent events. Each event is `event: <type>` with
 * `data: {type, data}`. Only checks of the user's workspaces, or the one check named by `token`,
 * are streamed (`resolveSignalScope`, shared with the WebSocket path); membership is read at
 * connect time and re-checked on every keep-alive.
 */
export async function signalStream(c: Context<AppEnv>, token: string | undefined): Promise<Response> {
  const deps = c.var.deps;
  const actor: Actor = c.var.actor;
  if (actor.kind !== 'user') throw unauthorized('The signal stream needs a session token');
  enforce(await consumeRateLimit(deps, STREAM_CONNECTION_LIMIT, `user:${actor.userId}`));
  const scope = await resolveSignalScope({ deps, actor }, token);
  const broadcaster = deps.broadcaster;
  if (!canSubscribe(broadcaster)) throw new HttpError('NOT_FOUND', 'This deployment serves the signal stream over WebSocket');
  // Over the open-stream caps (per address, per user) this is the 429 the spec's error handler writes.
  const admission = admitStream(broadcaster.streams, { address: clientIp(c), userId: actor.userId, sessionId: actor.sessionId });

  return streamSSE(c, async (stream) => {
    let backlog = 0;
    let writing: Promise<void> = Promise.resolve();
    const send = (write: () => Promise<void>) => {
      if (backlog >= MAX_BACKLOG) return;
      backlog++;
      writing = writing
        .then(write)
        .catch(() => undefined)
        .finally(() => backlog--);
    };
    // Ends on the client's disconnect, when the user's access changes (closeUserStreams or the re-check), or at its session's logout.
    let end: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => (end = resolve));
    stream.onAbort(() => end());
    admission.onClose(() => end());

    const unsubscribe = broadcaster.subscribe((hubEvent) => {
      const event = toStreamEvent(hubEvent);
      if (event && hears(scope.subscriptions, hubEvent)) send(() => stream.writeSSE({ event: event.type, data: JSON.stringify(event) }));
    });
    const unwatch = broadcaster.onUserStreamsClosed((userId) => {
      if (userId === scope.userId) end();
    });
    // Each keep-alive re-checks the access granted at connect; a revoked one ends the stream.
    const keepAlive = setInterval(() => {
      void signalScopeStillHolds(deps, scope).then(
        (holds) => (holds ? send(async () => void (await stream.write(': keep-alive\n\n'))) : end()),
        () => send(async () => void (await stream.write(': keep-alive\n\n'))),
      );
    }, KEEP_ALIVE_MS);
    keepAlive.unref();
    send(async () => void (await stream.write(': connected\n\n')));
    await ended;
    admission.release();
    clearInterval(keepAlive);
    unsubscribe();
    unwatch();
  });
}
