import type { BroadcastEvent, Broadcaster } from '../../ports/index.js';
import { StreamRegistry } from '../../http/streamLimits.js';

type Listener = (event: BroadcastEvent) => void;
type CloseListener = (userId: number) => void;

/** The local stream hub: server-sent-event and WebSocket connections subscribe here. */
export class LocalBroadcaster implements Broadcaster {
  private readonly listeners = new Set<Listener>();
  private readonly closeListeners = new Set<CloseListener>();
  /** Every open stream of this process, SSE and WebSocket: the connection caps and the closes by session or page. */
  readonly streams = new StreamRegistry();

  async publish(event: BroadcastEvent): Promise<void> {
    notify(this.listeners, event);
  }

  async closeUserStreams(userId: number): Promise<void> {
    notify(this.closeListeners, userId);
    // Status streams a member opened by access token listen to no user event: the registry ends them.
    this.streams.closeWhere((stream) => stream.userId === userId);
  }

  async closeSessionStreams(userId: number, sessionId: string): Promise<void> {
    this.streams.closeWhere((stream) => stream.userId === userId && stream.sessionId === sessionId);
  }

  async closePageStreams(statusPageId: number): Promise<void> {
    this.streams.closeWhere((stream) => stream.statusPageId === String(statusPageId));
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A stream registers here to be ended when its user's access changes. */
  onUserStreamsClosed(listener: CloseListener): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }
}

function notify<T>(listeners: Set<(value: T) => void>, value: T): void {
  for (const listener of listeners) {
    try {
      listener(value);
    } catch (err) {
      console.error('stream listener failed', err);
    }
  }
}
