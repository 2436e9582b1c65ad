import type { BroadcastEvent, Broadcaster } from '../../ports/index.js';

type Listener = (event: BroadcastEvent) => void;

/** The local stream hub: server-sent-event connections subscribe here. */
export class LocalBroadcaster implements Broadcaster {
  private readonly listeners = new Set<Listener>();

  async publish(event: BroadcastEvent): Promise<void> {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        console.error('stream listener failed', err);
      }
    }
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }
}
