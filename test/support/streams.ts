import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { canSubscribe } from '../../core/signals/streamEvents.js';
import { attachLocalStreams, type LocalStreams } from '../../core/streams/local.js';
import type { TestContext } from '../harness.js';

/**
 * The test context's app on a loopback port with the local WebSocket streams attached, as
 * `npm start` serves them: what the stream tests connect to over real sockets.
 */
export async function serveWithStreams(t: TestContext): Promise<{ port: number; streams: LocalStreams; close(): Promise<void> }> {
  const server = await new Promise<ServerType>((resolve) => {
    const started: ServerType = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  const streams = attachLocalStreams(server, t.deps);
  return {
    port: (server.address() as AddressInfo).port,
    streams,
    close: async () => {
      streams.close();
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Waits (bounded, by event-loop turns, not time) until the server has released closed streams down to `n`. */
export async function streamsSettled(t: TestContext, n: number): Promise<void> {
  const hub = t.deps.broadcaster;
  if (!canSubscribe(hub)) throw new Error('no local hub');
  for (let turn = 0; hub.streams.size > n; turn++) {
    if (turn > 10_000) throw new Error(`${hub.streams.size} streams still open`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Rejects if `promise` has not settled within `ms`: a bound on a wait for a socket, not a sleep. */
export function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
