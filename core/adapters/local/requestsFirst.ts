import { AsyncLocalStorage } from 'node:async_hooks';
import type { Store } from '../../store/service.js';

/**
 * Background store calls in flight at most, with no request in flight: enough to keep LevelDB's
 * threads and this loop busy (a queue round hands out 25 messages of each queue at once), few
 * enough that a request arriving meets a short line.
 */
const BACKGROUND_IDLE = 32;
/** ...and while a request is in flight: background work goes on, a few calls at a time. */
const BACKGROUND_BUSY = 8;

/**
 * Requests first, in the embedded runtime. The HTTP server, the queue consumers, the sweep and both
 * embedded stores share this process's one event loop (docs/adr/0012-embedded-stores-in-process.md),
 * and a store call is most of the CPU any of them spends. A mass recovery (thousands of DOWN jobs
 * pinging again within seconds) left each ping's calls in line behind whole rounds of the queue's
 * consumers, 50 messages of a dozen calls each: ping p99 13.6 s at 4,000 jobs, though nothing was
 * slow on its own. So every store call of the queue's deliveries (run through `background` by
 * `LocalQueue`) passes `call`, which lets `idle` of them in flight while no request is, and only
 * `busy` while one is; any other call never waits. Only the queue's: gating everything outside a
 * request (the sweep too) stalled a 4,000-job steady state (ping p50 119 s with the CPU mostly
 * idle), and shared work such as the signal writer's group commit carries on in the async context
 * of whoever started it, so a line it enters can hold pings that only joined it. The work done
 * is the same, only its order changes, and background work never stops (`busy` is at least 1), so a
 * request that waits on background work still sees it finish.
 *
 * One per process (`requestsFirst`), since the event loop it shares out is. On AWS each Lambda
 * has its own CPU and none of this applies: only the local adapters use it.
 */
export class RequestsFirst {
  private requests = 0;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly inBackground = new AsyncLocalStorage<true>();

  constructor(
    private readonly idle: number = BACKGROUND_IDLE,
    private readonly busy: number = BACKGROUND_BUSY,
  ) {
    if (busy < 1 || idle < busy) throw new Error('background work needs at least one call in flight, and no fewer when idle');
  }

  /** Handles a request: counted from its arrival until its response is returned. */
  request<T>(handle: () => Promise<T>): Promise<T> {
    this.requests++;
    const left = () => {
      this.requests--;
      this.pump();
    };
    let handling: Promise<T>;
    try {
      handling = handle();
    } catch (err) {
      left();
      throw err;
    }
    handling.then(left, left);
    return handling;
  }

  /** Runs `work` as background work: its store calls, and those of everything it starts, pass `call`'s line. */
  background<T>(work: () => Promise<T>): Promise<T> {
    return this.inBackground.run(true, work);
  }

  /** A store call: from background work, when a place is free; any other at once. */
  async call<T>(send: () => Promise<T>): Promise<T> {
    if (!this.inBackground.getStore()) return send();
    if (this.running < this.limit()) this.running++;
    // The place is handed over by `pump`, already counted, so no later caller can take it first.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await send();
    } finally {
      this.running--;
      this.pump();
    }
  }

  /** What waits and what runs (tests and the bench). */
  get state(): { requests: number; background: number; waiting: number } {
    return { requests: this.requests, background: this.running, waiting: this.waiting.length };
  }

  private limit(): number {
    return this.requests > 0 ? this.busy : this.idle;
  }

  private pump(): void {
    while (this.waiting.length > 0 && this.running < this.limit()) {
      this.running++;
      this.waiting.shift()?.();
    }
  }
}

/** The process's one (see `RequestsFirst`). */
export const requestsFirst = new RequestsFirst();

/** Puts both clients of a store through `gate`, before their first call (the plain one caches its middleware). */
export function gateStore(store: Pick<Store, 'client' | 'hot'>, gate: RequestsFirst = requestsFirst): void {
  const options = { step: 'initialize', name: 'requestsFirst', priority: 'high' } as const;
  store.client.middlewareStack.add((next) => (args) => gate.call(() => next(args)), options);
  store.hot.middlewareStack.add((next) => (args) => gate.call(() => next(args)), options);
}
