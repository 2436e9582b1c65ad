import http from 'node:http';
import https from 'node:https';
import type { ConnectRequest } from './types.js';

/**
 * Kept-alive sockets for alert deliveries (connect.ts `keepAlive`), without weakening the guard.
 * A socket is bound to the decision that opened it: each pool (one Agent) holds sockets to one
 * destination only, keyed by protocol, host name, approved address and family, and port, and a
 * request is handed the pool of its own guard decision. So a socket is reused only by a request
 * whose guard, after resolving the name again, approved the very same address: a name that now
 * resolves elsewhere gets a pool of its own, and one that now resolves to a blocked address is
 * refused by the guard before any pool is asked (a pooled socket to the old address sits unused
 * until its idle timeout). The connector's trust anchors are part of the key too. Redirects are judged hop by hop in request.ts, each hop taking the
 * pool of its own decision: a socket never follows a redirect to another address.
 *
 * Probes never pool: a probe measures a fresh connection, its handshake and its certificate.
 */

export type KeepAliveOptions = {
  /** How long a socket may sit idle before it is closed (below the usual 5 s server timeout, so a reuse rarely meets a socket the server is closing). */
  readonly idleMs?: number;
  /** Idle sockets kept per destination. */
  readonly maxIdlePerDestination?: number;
  /** Destinations with a pool; past it the least recently used one is closed. Bounds idle sockets at destinations x idle per destination. */
  readonly maxDestinations?: number;
};

const IDLE_MS = 2000;
/**
 * As many as a burst to one destination has in flight: a batch's deliveries run at once (25
 * messages in the local runtime, core/runtime.ts; 10 in an SQS batch), so a burst that finds fewer
 * idle ones opens the rest afresh and, finding no room, closes them again when it ends. With 4 (as
 * before), a mass outage's 8,000 webhooks to one receiver opened some 5,300 connections; on https
 * each is a handshake. Keeping them costs no more sockets than the burst held open anyway: a
 * socket is only idle after being busy, and closes 2 s later.
 */
const MAX_IDLE_PER_DESTINATION = 32;
const MAX_DESTINATIONS = 64;

/** What a pooled socket is bound to: everything the guard decided, and nothing it did not. */
const destinationKey = (request: Pick<ConnectRequest, 'url' | 'hostname' | 'address' | 'family' | 'port'>, anchors: string): string =>
  [request.url.protocol, request.hostname.toLowerCase(), request.address, request.family, request.port, anchors].join(' ');

export class DestinationPools {
  /** In order of last use, oldest first (a Map keeps insertion order; a use moves its entry to the end). */
  private readonly agents = new Map<string, http.Agent>();
  private readonly idleMs: number;
  private readonly maxIdle: number;
  private readonly maxDestinations: number;

  constructor(options: KeepAliveOptions = {}) {
    this.idleMs = options.idleMs ?? IDLE_MS;
    this.maxIdle = options.maxIdlePerDestination ?? MAX_IDLE_PER_DESTINATION;
    this.maxDestinations = options.maxDestinations ?? MAX_DESTINATIONS;
  }

  /** The pool of this request's own guard decision, for a connector trusting `anchors` (an id of its CA set). */
  agentFor(request: ConnectRequest, anchors: string): http.Agent {
    const key = destinationKey(request, anchors);
    let agent = this.agents.get(key);
    if (agent) {
      this.agents.delete(key);
    } else {
      // `timeout` closes a socket idle in the pool after idleMs (Node sets it on every freed socket).
      const options = { keepAlive: true, maxFreeSockets: this.maxIdle, timeout: this.idleMs, scheduling: 'lifo' as const };
      agent = request.url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    }
    this.agents.set(key, agent);
    for (const [oldest, evicted] of this.agents) {
      if (this.agents.size <= this.maxDestinations) break;
      this.agents.delete(oldest);
      retire(evicted);
    }
    return agent;
  }

  /** Idle sockets held now, all destinations together (tests). */
  idleSockets(): number {
    let idle = 0;
    for (const agent of this.agents.values()) for (const sockets of Object.values(agent.freeSockets)) idle += sockets?.length ?? 0;
    return idle;
  }

  /** Closes every idle socket; requests in flight finish, and their sockets close after them. */
  close(): void {
    for (const agent of this.agents.values()) retire(agent);
    this.agents.clear();
  }
}

/** Closes a pool's idle sockets, and its busy ones once their exchange ends (never mid-request, as `agent.destroy()` would). */
function retire(agent: http.Agent): void {
  // A freed socket is closed rather than kept when its agent no longer keeps any (Node's 'free' handler).
  (agent as http.Agent & { keepAlive: boolean }).keepAlive = false;
  agent.maxFreeSockets = 0;
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}
