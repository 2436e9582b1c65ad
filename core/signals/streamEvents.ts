import type { BroadcastEvent, Broadcaster } from '../ports/index.js';
import type { StreamRegistry } from '../http/streamLimits.js';
import type { CheckItem } from '../store/entities/check.js';
import type { IncidentItem } from '../store/entities/incident.js';
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
    }
  | { type: 'incident'; data: IncidentEventData };

/**
 * An incident was opened, changed state or severity, or gained a timeline entry or note. Ids and
 * enums only, no tenant text: a viewer refetches the incident through the API, which scopes it.
 */
export type IncidentChange = 'opened' | 'updated' | 'timeline';
export type IncidentEventData = {
  incidentId: number;
  workspaceId: number;
  checkId: number | null;
  state: IncidentItem['state'];
  severity: IncidentItem['severity'];
  change: IncidentChange;
};
export type IncidentStamp = Pick<IncidentItem, 'incidentId' | 'workspaceId' | 'checkId' | 'state' | 'severity'>;

/** Everything about one workspace travels on one channel; connections filter further by check. */
export const workspaceChannel = (workspaceId: number): string => `workspace:${workspaceId}`;
/** Within a workspace's channel, each check is a topic, so a stream filtered to one check is addressed directly. */
export const checkTopic = (checkId: number): string => `check:${checkId}`;
/**
 * An incident travels on its check's topic, so a stream filtered to that check hears it too; an
 * incident without a check (declared, dependency) has a topic of its own, heard by unfiltered streams.
 */
export const incidentTopic = (data: Pick<IncidentEventData, 'incidentId' | 'checkId'>): string =>
  data.checkId !== null ? checkTopic(data.checkId) : `incident:${data.incidentId}`;

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

export const incidentEvent = (incident: IncidentStamp, change: IncidentChange): StreamEvent => ({
  type: 'incident',
  data: {
    incidentId: incident.incidentId,
    workspaceId: incident.workspaceId,
    checkId: incident.checkId ?? null,
    state: incident.state,
    severity: incident.severity,
    change,
  },
});

/**
 * Step 5 of the pipeline. A stream that cannot be reached never fails the ping, the sweep or the
 * incident write that already stored its work: viewers reconnect and read history.
 */
export async function broadcast(deps: { broadcaster: Pick<Broadcaster, 'publish'> }, events: StreamEvent[]): Promise<void> {
  for (const event of events) {
    try {
      await deps.broadcaster.publish({
        channel: workspaceChannel(event.data.workspaceId),
        topic: event.type === 'incident' ? incidentTopic(event.data) : checkTopic(event.data.checkId),
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
  if (event.type !== 'signal' && event.type !== 'check' && event.type !== 'incident') return undefined;
  return { type: event.type, data: event.data } as StreamEvent;
}
