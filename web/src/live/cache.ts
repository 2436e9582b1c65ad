import type { QueryClient } from '@tanstack/react-query';
import type { Schemas } from '../api/client';
import { incidentKeys } from '../incidents/api';
import type { StreamMessage } from './connection';

type CheckChange = Extract<StreamMessage, { event: 'check' }>['data'];
type IncidentChange = Extract<StreamMessage, { event: 'incident' }>['data'];
type Check = Schemas['Check'];
type CheckPage = Schemas['CheckPage'];

// The checks screens' keys (web/src/checks/api.ts): ['checks', 'list', filters], ['checks', 'detail', id], ...
const CHECK_LISTS = ['checks', 'list'] as const;
const checkDetail = (id: number) => ['checks', 'detail', id] as const;
const checkIncidents = (id: number) => ['checks', 'incidents', id] as const;

const isCheckPage = (data: unknown): data is CheckPage => typeof data === 'object' && data !== null && Array.isArray((data as { items?: unknown }).items);

const patch = <T extends Pick<Check, 'status' | 'lastPingAt' | 'nextDueAt'>>(check: T, change: CheckChange): T => ({
  ...check,
  status: change.status as Check['status'],
  lastPingAt: change.lastPingAt,
  nextDueAt: change.nextDueAt,
});

/**
 * Applies one stream message to the TanStack Query cache: a check's new state is written into
 * every cached page and detail that shows it (no refetch, so a row changes within a frame); a
 * change of status also refetches the lists filtered by status. Incidents follow their own
 * `incident` events (opened, changed, new timeline entry or note), not the check's status: the
 * incidents worker opens one after the check's DOWN went out, and announces it then.
 */
export function applyMessage(queryClient: QueryClient, message: StreamMessage): void {
  if (message.event === 'incident') return refreshIncident(queryClient, message.data);
  if (message.event === 'signal') {
    // That check's recent signals, keyed by its token (the detail page): refetched only when its
    // detail is cached, so a busy workspace's pings do not refetch another check's list.
    const token = queryClient.getQueryData<Check>(checkDetail(message.data.checkId))?.token;
    if (token) void queryClient.invalidateQueries({ queryKey: ['checks', 'signals', token] });
    return;
  }
  if (message.event !== 'check') return;
  const change = message.data;
  // The last status heard per check, for checks on no screen: a first word about a check counts as a change.
  const before = lastHeard.get(change.checkId);
  lastHeard.set(change.checkId, change.status);
  let statusChanged = before !== change.status;
  queryClient.setQueriesData<CheckPage>({ queryKey: CHECK_LISTS }, (page) => {
    if (!isCheckPage(page)) return page;
    const index = page.items.findIndex((check) => check.id === change.checkId);
    const current = page.items[index];
    if (current === undefined) return page;
    if (current.status !== change.status) statusChanged = true;
    const items = page.items.slice();
    items[index] = patch(current, change);
    return { ...page, items };
  });
  queryClient.setQueryData<Check>(checkDetail(change.checkId), (check) => {
    if (check === undefined) return check;
    if (check.status !== change.status) statusChanged = true;
    return patch(check, change);
  });
  // A filtered list (status=DOWN) may gain or lose the row.
  if (statusChanged) void queryClient.invalidateQueries({ queryKey: CHECK_LISTS });
}

const lastHeard = new Map<number, string>();

/**
 * The event names the incident only (no text), so what shows it is read again: every incident
 * list (it may enter, leave or reorder one), its detail, timeline and notes, and its check's list.
 * Only queries on screen refetch; the rest are marked stale.
 */
function refreshIncident(queryClient: QueryClient, change: IncidentChange): void {
  void queryClient.invalidateQueries({ queryKey: incidentKeys.lists });
  void queryClient.invalidateQueries({ queryKey: incidentKeys.detail(change.incidentId) });
  void queryClient.invalidateQueries({ queryKey: incidentKeys.timeline(change.incidentId) });
  void queryClient.invalidateQueries({ queryKey: incidentKeys.notes(change.incidentId) });
  if (change.checkId !== null) void queryClient.invalidateQueries({ queryKey: checkIncidents(change.checkId) });
}

/** After a reconnect, anything may have changed meanwhile: everything on screen refetches. */
export function resumeAfterGap(queryClient: QueryClient): void {
  void queryClient.invalidateQueries({ queryKey: ['checks'] });
  void queryClient.invalidateQueries({ queryKey: incidentKeys.all });
}
