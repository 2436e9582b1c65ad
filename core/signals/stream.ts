import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Actor } from '../context.js';
import type { AppEnv } from '../http/env.js';
import { HttpError, unauthorized } from '../http/errors.js';
import { consumeRateLimit, enforce } from '../http/rateLimit.js';
import { loadCheckByToken } from './history.js';
import { canSubscribe, toStreamEvent, type StreamEvent } from './streamEvents.js';

/** Spec Limits: 30 new signal-stream connections per 60 s (per user). */
export const STREAM_CONNECTION_LIMIT = { name: 'signal-stream', limit: 30, windowSeconds: 60 };
export const KEEP_ALIVE_MS = 15_000;
/** A viewer that stops reading loses events past this backlog instead of growing memory. */
const MAX_BACKLOG = 100;

/**
 * `GET /signals/sse`: the signal stream as server-sent events. Each event is `event: <type>` with
 * `data: {type, data}` (the WebSocket path sends the same object). Only checks of the user's
 * workspaces, or the one check named by `token`, are streamed; membership is read at connect time.
 */
export async function signalStream(c: Context<AppEnv>, token: string | undefined): Promise<Response> {
  const deps = c.var.deps;
  const actor: Actor = c.var.actor;
  if (actor.kind !== 'user') throw unauthorized('The signal stream needs a session token');
  enforce(await consumeRateLimit(deps, STREAM_CONNECTION_LIMIT, `user:${actor.userId}`));
  const only = token === undefined ? undefined : (await loadCheckByToken({ deps, actor }, token)).checkId;
  const memberships = await deps.store.entities.membership.query.byUser({ userId: actor.userId }).go({ pages: 'all' });
  const workspaces = new Set(memberships.data.map((m) => m.workspaceId));
  const broadcaster = deps.broadcaster;
  if (!canSubscribe(broadcaster)) throw new HttpError('NOT_FOUND', 'This deployment serves the signal stream over WebSocket');

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
    const visible = (event: StreamEvent) =>
      workspaces.has(event.data.workspaceId) && (only === undefined || event.data.checkId === only);

    const unsubscribe = broadcaster.subscribe((hubEvent) => {
      const event = toStreamEvent(hubEvent);
      if (event && visible(event)) send(() => stream.writeSSE({ event: event.type, data: JSON.stringify(event) }));
    });
    const keepAlive = setInterval(() => send(async () => void (await stream.write(': keep-alive\n\n'))), KEEP_ALIVE_MS);
    keepAlive.unref();
    send(async () => void (await stream.write(': connected\n\n')));
    await new Promise<void>((resolve) => stream.onAbort(resolve));
    clearInterval(keepAlive);
    unsubscribe();
  });
}
