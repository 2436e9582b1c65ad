import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { WebSocket } from 'ws';
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

/** A real WebSocket client whose messages queue up; every wait is bounded by `within` ms. */
export type StreamClient<M> = { ws: WebSocket; next(within?: number): Promise<M>; closed(within?: number): Promise<number> };

/** An upgrade the server refused, with the HTTP status it answered. */
export class StreamRefused extends Error {
  constructor(readonly status: number) {
    super(`refused with ${status}`);
  }
}

/** Opens `url`: a client once the upgrade is accepted, or a StreamRefused with the status it was refused with. */
export function openStream<M>(url: string): Promise<StreamClient<M>> {
  const ws = new WebSocket(url);
  const queue: M[] = [];
  const waiting: ((message: M) => void)[] = [];
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as M;
    const waiter = waiting.shift();
    if (waiter) waiter(message);
    else queue.push(message);
  });
  const closeCode = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  const client: StreamClient<M> = {
    ws,
    next: (within = 1000) => (queue.length > 0 ? Promise.resolve(queue.shift() as M) : bounded(new Promise<M>((resolve) => waiting.push(resolve)), within, 'no message')),
    closed: (within = 1000) => bounded(closeCode, within, 'not closed'),
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_request, response) => reject(new StreamRefused(response.statusCode ?? 0)));
    ws.once('error', reject);
  });
}
