import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';

export type Check = Schemas['Check'];
export type CheckDetail = Schemas['CheckDetail'];
export type CheckStatus = Check['status'];
export type CheckType = Check['checkType'];

/** One place for the checks' query keys: every mutation below invalidates `checks` as a whole. */
export const checkKeys = {
  all: ['checks'] as const,
  list: (filters: ListFilters) => ['checks', 'list', filters] as const,
  detail: (id: number) => ['checks', 'detail', id] as const,
  sparklines: (workspaceId: number, ids: number[]) => ['checks', 'sparklines', workspaceId, ids] as const,
  signals: (token: string) => ['checks', 'signals', token] as const,
  runs: (id: number) => ['checks', 'runs', id] as const,
  stats: (id: number, window: string) => ['checks', 'stats', id, window] as const,
  incidents: (id: number) => ['checks', 'incidents', id] as const,
};

export type ListFilters = {
  workspaceId: number;
  projectId: number | null;
  status: CheckStatus | null;
  checkType: CheckType | null;
  q: string;
  page: number;
  cursor: string | null;
};

export const PAGE_SIZE = 50;

export function useCheckList(filters: ListFilters) {
  return useQuery({
    queryKey: checkKeys.list(filters),
    // The next page's skeleton would flash the whole table: keep the old rows until it arrives.
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.GET('/checks', {
          params: {
            query: {
              workspaceId: filters.workspaceId,
              ...(filters.cursor === null ? { page: filters.page } : { cursor: filters.cursor }),
              limit: PAGE_SIZE,
              ...(filters.projectId === null ? {} : { projectId: filters.projectId }),
              ...(filters.status === null ? {} : { status: filters.status }),
              ...(filters.checkType === null ? {} : { checkType: filters.checkType }),
              ...(filters.q === '' ? {} : { q: filters.q }),
            },
          },
        }),
      ),
  });
}

/** Latency sparklines for the HTTP rows on screen, one request per page of rows. */
export function useSparklines(workspaceId: number, ids: number[]) {
  return useQuery({
    queryKey: checkKeys.sparklines(workspaceId, ids),
    enabled: ids.length > 0,
    staleTime: 60_000,
    queryFn: () => unwrap(api.GET('/checks/sparklines', { params: { query: { workspaceId, ids: ids.join(',') } } })),
  });
}

export const useCheck = (id: number) => useQuery({ queryKey: checkKeys.detail(id), queryFn: () => unwrap(api.GET('/checks/{id}', { params: { path: { id } } })) });

export const useSignals = (token: string | undefined) =>
  useQuery({
    queryKey: checkKeys.signals(token ?? ''),
    enabled: token !== undefined,
    queryFn: () => unwrap(api.GET('/signals/token/{token}', { params: { path: { token: token ?? '' }, query: { limit: 20 } } })),
  });

export const useProbeRuns = (id: number, enabled: boolean) =>
  useQuery({ queryKey: checkKeys.runs(id), enabled, queryFn: () => unwrap(api.GET('/checks/{id}/runs', { params: { path: { id }, query: { limit: 100 } } })) });

export const useOutboundStats = (id: number, window: string, enabled: boolean) =>
  useQuery({ queryKey: checkKeys.stats(id, window), enabled, queryFn: () => unwrap(api.GET('/checks/{id}/outbound-stats', { params: { path: { id }, query: { window } } })) });

export const useCheckIncidents = (id: number, workspaceId: number) =>
  useQuery({ queryKey: checkKeys.incidents(id), queryFn: () => unwrap(api.GET('/incidents', { params: { query: { checkId: id, workspaceId, limit: 10 } } })) });

/** After any write: every list, detail and sparkline of checks is refetched when next shown. */
export function useInvalidateChecks() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: checkKeys.all });
}

export function usePauseResume() {
  const invalidate = useInvalidateChecks();
  return useMutation({
    mutationFn: ({ id, pause }: { id: number; pause: boolean }) =>
      pause ? unwrap(api.PUT('/checks/{id}/pause', { params: { path: { id } } })) : unwrap(api.PUT('/checks/{id}/resume', { params: { path: { id } } })),
    onSuccess: invalidate,
  });
}

export type BulkAction = 'pause' | 'resume' | 'delete';

export function useBulk() {
  const invalidate = useInvalidateChecks();
  return useMutation({
    mutationFn: ({ workspaceId, action, ids }: { workspaceId: number; action: BulkAction; ids: number[] }) =>
      unwrap(api.POST('/checks/bulk', { body: { workspaceId, action, ids } })),
    onSuccess: invalidate,
  });
}
