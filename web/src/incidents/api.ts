import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';

export type Incident = Schemas['Incident'];
export type IncidentEvent = Schemas['IncidentEvent'];
export type IncidentNote = Schemas['IncidentNote'];
export type IncidentState = Incident['state'];
export type Severity = Incident['severity'];

export type IncidentFilters = {
  workspaceId: number;
  projectId: number | null;
  state: 'ACTIVE' | 'RESOLVED';
  page: number;
};

/**
 * The incidents' query keys in one place: a mutation or a live event invalidates `incidents` as a
 * whole (lists, details, timelines, notes), so nothing on screen keeps an old state.
 */
export const incidentKeys = {
  all: ['incidents'] as const,
  lists: ['incidents', 'list'] as const,
  list: (filters: IncidentFilters) => ['incidents', 'list', filters] as const,
  detail: (id: number) => ['incidents', 'detail', id] as const,
  timeline: (id: number) => ['incidents', 'timeline', id] as const,
  notes: (id: number) => ['incidents', 'notes', id] as const,
};

export const INCIDENT_PAGE_SIZE = 20;

export const useIncidentList = (filters: IncidentFilters) =>
  useQuery({
    queryKey: incidentKeys.list(filters),
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.GET('/incidents', {
          params: {
            query: {
              workspaceId: filters.workspaceId,
              state: filters.state,
              page: filters.page,
              limit: INCIDENT_PAGE_SIZE,
              ...(filters.projectId === null ? {} : { projectId: filters.projectId }),
            },
          },
        }),
      ),
  });

/** A malformed id in the URL asks nothing of the server (the page says "not found"). */
export const useIncident = (id: number) =>
  useQuery({ queryKey: incidentKeys.detail(id), enabled: Number.isInteger(id) && id > 0, queryFn: () => unwrap(api.GET('/incidents/{id}', { params: { path: { id } } })) });

export const useTimeline = (id: number) =>
  useQuery({ queryKey: incidentKeys.timeline(id), queryFn: () => unwrap(api.GET('/incident-events/{incidentId}', { params: { path: { incidentId: id } } })) });

export const useNotes = (id: number) =>
  useQuery({ queryKey: incidentKeys.notes(id), queryFn: () => unwrap(api.GET('/incident-notes/{incidentId}', { params: { path: { incidentId: id } } })) });

/** Acknowledge or resolve: the answer is the incident itself, so the detail updates at once; lists and the timeline refetch. */
export function useIncidentAction(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (action: 'acknowledge' | 'resolve') =>
      action === 'acknowledge'
        ? unwrap(api.POST('/incidents/{id}/acknowledge', { params: { path: { id } } }))
        : unwrap(api.POST('/incidents/{id}/resolve', { params: { path: { id } } })),
    onSuccess: async (incident) => {
      queryClient.setQueryData(incidentKeys.detail(id), incident);
      await queryClient.invalidateQueries({ queryKey: incidentKeys.all });
      // A check's own incident list (on its detail page) shows the same incident.
      await queryClient.invalidateQueries({ queryKey: ['checks', 'incidents'] });
    },
  });
}

export function useNoteMutations(incidentId: number) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: incidentKeys.notes(incidentId) });
  const add = useMutation({
    mutationFn: (body: string) => unwrap(api.POST('/incident-notes/{incidentId}', { params: { path: { incidentId } }, body: { body } })),
    onSuccess: refresh,
  });
  const edit = useMutation({
    mutationFn: ({ noteId, body }: { noteId: number; body: string }) =>
      unwrap(api.PATCH('/incident-notes/{incidentId}/{noteId}', { params: { path: { incidentId, noteId } }, body: { body } })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (noteId: number) => unwrap(api.DELETE('/incident-notes/{incidentId}/{noteId}', { params: { path: { incidentId, noteId } } })),
    onSuccess: refresh,
  });
  return { add, edit, remove };
}
