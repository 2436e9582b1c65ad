import type { BroadcastEvent, Broadcaster } from '../ports/index.js';
import type { StreamRegistry } from '../http/streamLimits.js';
import type { CheckItem } from '../store/entities/check.js';
import type { SignalItem } from '../store/entities/signal.js';
import { toSignal } from './record.js';
import type { Signal } from './schema.js';

/**
 * The signal stream's events, one format for the local SSE hub and the WebSocket path on AWS:
 * `{type, data}`, where every `data` names its check and workspace so a connection can filter.
 */
export type CheckState = Pick<CheckItem, 'checkId' | 'workspaceId' | 'status'> & Partial<Pick<CheckItem, 'lastPingAt' | 'nextDueAt'>>;

export type StreamEvent =
  | { type: 'signal'; data: { checkId: number; workspaceId: number; signal: Signal } }
  | {
      type: 'check';
      data: { checkId: number; workspaceId: number; status: CheckItem['status']; lastPingAt: string | null; nextDueAt: string | null };
    };

/** Everything about one workspace travels on one channel; connections filter further by check. */
export const workspaceChannel = (workspaceId: number): string => `workspace:${workspaceId}`;
/** Within a workspace's channel, each check is a topic, so a stream filtered to one check is addressed directly. */
export const checkTopic = (checkId: number): string => `check:${checkId}`;

export const signalEvent = (item: SignalItem): StreamEvent => ({
  type: 'signal',
  data: { checkId: item.checkId, workspaceId: item.workspaceId, signal: toSignal(item) },
});

export const checkEvent = (check: CheckState): StreamEvent => ({
  type: 'check',
  data: {
    checkId: check.checkId,
    workspaceId: check.workspaceId,
    status: check.status,
    lastPingAt: check.lastPingAt ?? null,
    nextDueAt: check.nextDueAt ?? null,
  },
});

/**
 * Step 5 of the pipeline. A stream that cannot be reached never fails the ping or the sweep that
 * already stored its work: viewers reconnect and read history.
 */
export async function broadcast(deps: { broadcaster: Pick<Broadcaster, 'publish'> }, events: StreamEvent[]): Promise<void> {
  for (const event of events) {
    try {
      await deps.broadcaster.publish({
        channel: workspaceChannel(event.data.workspaceId),
        topic: checkTopic(event.data.checkId),
        type: event.type,
        data: event.data,
      });
    } catch (err) {
      console.error('stream broadcast failed', err);
    }
  }
}

/** The stream hub the SSE route listens on (the local adapter; AWS pushes over WebSockets). */
export type SubscribableBroadcaster = Broadcaster & {
  subscribe(listener: (event: BroadcastEvent) => void): () => void;
  onUserStreamsClosed(listener: (userId: number) => void): () => void;
  /** The open streams of this process: each stream is admitted here (connection caps) and closed from here. */
  streams: StreamRegistry;
};

export const canSubscribe = (broadcaster: Broadcaster): broadcaster is SubscribableBroadcaster =>
  typeof (broadcaster as Partial<SubscribableBroadcaster>).subscribe === 'function' &&
  typeof (broadcaster as Partial<SubscribableBroadcaster>).onUserStreamsClosed === 'function' &&
  typeof (broadcaster as Partial<SubscribableBroadcaster>).streams === 'object';

/** Turns a hub event back into the stream's format, or undefined for events of other streams. */
export function toStreamEvent(event: BroadcastEvent): StreamEvent | undefined {
  if (!event.channel.startsWith('workspace:')) return undefined;
  if (event.type !== 'signal' && event.type !== 'check') return undefined;
  return { type: event.type, data: event.data } as StreamEvent;
}
