import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { occurrenceAt } from '../../../core/maintenance/recurrence';

export type MaintenanceWindow = Schemas['MaintenanceWindow'];
export type Deployment = Schemas['Deployment'];
export type Occurrence = { startAt: number; endAt: number };

/** Windows and deployments under one key each: a create, cancel or end refetches every view of them. */
export const windowKeys = {
  windows: (workspaceId: number) => ['windows', 'maintenance', workspaceId] as const,
  deployments: (projectId: number) => ['windows', 'deployments', projectId] as const,
};

export const useMaintenanceWindows = (workspaceId: number) =>
  useQuery({ queryKey: windowKeys.windows(workspaceId), queryFn: () => unwrap(api.GET('/maintenance-windows', { params: { query: { workspaceId } } })) });

/** Deployments of each project given (the API lists one project at a time), newest first. */
export function useDeployments(projectIds: readonly number[]) {
  return useQueries({
    queries: projectIds.map((projectId) => ({
      queryKey: windowKeys.deployments(projectId),
      queryFn: () => unwrap(api.GET('/deployments', { params: { query: { projectId } } })),
    })),
    combine: (results) => ({
      pending: results.some((r) => r.isPending),
      error: results.find((r) => r.error)?.error ?? null,
      items: results.flatMap((r) => r.data ?? []).sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt)),
    }),
  });
}

export function useWindowMutations(workspaceId: number) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['windows'] });
  const create = useMutation({
    mutationFn: (body: Schemas['MaintenanceWindowCreate']) => unwrap(api.POST('/maintenance-windows', { body: { ...body, workspaceId } })),
    onSuccess: refresh,
  });
  const cancel = useMutation({
    mutationFn: (id: number) => unwrap(api.POST('/maintenance-windows/{id}/cancel', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/maintenance-windows/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const endDeployment = useMutation({
    mutationFn: (id: number) => unwrap(api.PUT('/deployments/{id}/end', { params: { path: { id } }, body: {} })),
    onSuccess: refresh,
  });
  return { create, cancel, remove, endDeployment };
}

export type Timing = { startAt: string; endAt: string; recurringCron: string | null; timezone: string };

/**
 * A window's occurrences overlapping `[from, to)`, by the server's own rule (core/maintenance/
 * recurrence.ts: cron times read in the window's zone, each as long as the template), up to
 * `limit`; `stop` (cancelled or completed) ends the series.
 */
export function occurrencesOf(window: Timing, from: number, to: number, limit = 62, stop = Number.POSITIVE_INFINITY): Occurrence[] {
  const timing = { startAt: new Date(window.startAt), endAt: new Date(window.endAt), recurringCron: window.recurringCron, timezone: window.timezone };
  const found: Occurrence[] = [];
  let at = from;
  while (found.length < limit) {
    const next = occurrenceAt(timing, new Date(at));
    if (!next) break;
    const startAt = next.startAt.getTime();
    const endAt = next.endAt.getTime();
    if (startAt >= to || startAt >= stop) break;
    found.push({ startAt, endAt: Math.min(endAt, stop) });
    // The next occurrence is the first that ends after this one does.
    at = Math.max(endAt, at + 1);
  }
  return found;
}
