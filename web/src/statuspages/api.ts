import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';

export type StatusPage = Schemas['StatusPage'];
export type StatusPageDetail = Schemas['StatusPageDetail'];
export type PageComponent = Schemas['StatusPageComponent'];
export type Announcement = Schemas['AnnouncementDashboard'];
export type AnnouncementStatus = Announcement['status'];
export type PageFields = Schemas['StatusPageUpdate'];
/** What a component's status follows: exactly one check, project, dependency or integration (the API's rule). */
export type ComponentTarget = { checkId: number } | { projectId: number } | { dependencyId: number } | { integrationId: number };

/** One key tree: any write under a page invalidates `['status-pages', id]` and the list. */
export const pageKeys = {
  all: ['status-pages'] as const,
  list: (workspaceId: number) => ['status-pages', 'list', workspaceId] as const,
  detail: (id: number) => ['status-pages', id, 'detail'] as const,
  announcements: (id: number) => ['status-pages', id, 'announcements'] as const,
  subscribers: (id: number) => ['status-pages', id, 'subscribers'] as const,
};

export const usePages = (workspaceId: number) =>
  useQuery({ queryKey: pageKeys.list(workspaceId), queryFn: () => unwrap(api.GET('/status-pages', { params: { query: { workspaceId } } })) });

export const usePage = (id: number) =>
  useQuery({ queryKey: pageKeys.detail(id), enabled: Number.isInteger(id) && id > 0, queryFn: () => unwrap(api.GET('/status-pages/{id}', { params: { path: { id } } })) });

export const useAnnouncements = (id: number) =>
  useQuery({ queryKey: pageKeys.announcements(id), queryFn: () => unwrap(api.GET('/status-pages/{id}/announcements', { params: { path: { id }, query: { take: 50 } } })) });

export const useSubscribers = (id: number, enabled: boolean) =>
  useQuery({ queryKey: pageKeys.subscribers(id), enabled, queryFn: () => unwrap(api.GET('/status-pages/{id}/subscribers', { params: { path: { id } } })) });

/** The slug as typed, asked about once typing pauses; `undefined` while nothing is known. */
export const useSlugAvailable = (slug: string, current: string | undefined) =>
  useQuery({
    queryKey: ['status-pages', 'slug', slug],
    enabled: slug.length > 0 && slug !== current,
    staleTime: 5_000,
    queryFn: async () => (await unwrap(api.GET('/status-pages/check-slug', { params: { query: { slug } } }))).isAvailable,
  });

/** The checks a component can follow (the first 100 of the workspace, by name). */
export const useCheckChoices = (workspaceId: number | null) =>
  useQuery({
    queryKey: ['status-pages', 'check-choices', workspaceId],
    enabled: workspaceId !== null,
    queryFn: async () => (await unwrap(api.GET('/checks', { params: { query: { workspaceId: workspaceId ?? 0, limit: 100, page: 1 } } }))).items,
  });

export const previewMarkdown = (body: string) => unwrap(api.POST('/status-pages/markdown-preview', { body: { body } }));

/** Every write of the editor: refetch the page's tree afterwards (the server's order and state win). */
export function usePageWrites(id: number) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: pageKeys.all });
  const useWrite = <A, R>(fn: (arg: A) => Promise<R>) => useMutation({ mutationFn: fn, onSuccess: refresh });
  return {
    update: useWrite((body: PageFields) => unwrap(api.PATCH('/status-pages/{id}', { params: { path: { id } }, body }))),
    addComponent: useWrite(({ name, target }: { name: string; target: ComponentTarget }) =>
      unwrap(api.POST('/status-pages/{id}/components', { params: { path: { id } }, body: { name, position: 0, showUptimeBar: true, ...target } })),
    ),
    removeComponent: useWrite((componentId: number) => unwrap(api.DELETE('/status-pages/{id}/components/{componentId}', { params: { path: { id, componentId } } }))),
    reorder: useMutation({
      mutationKey: ['status-pages', id, 'reorder'],
      // Moves pressed in quick succession go out one after another, each with the whole order: sent
      // at once, an earlier one answered last would leave the server one move behind the screen.
      scope: { id: `status-page-reorder-${id}` },
      mutationFn: (componentIds: number[]) => unwrap(api.PATCH('/status-pages/{id}/components/reorder', { params: { path: { id } }, body: { componentIds } })),
      // Refetch after the last queued move only: an earlier answer would put an older order back on screen.
      onSettled: () => (queryClient.isMutating({ mutationKey: ['status-pages', id, 'reorder'] }) <= 1 ? refresh() : undefined),
    }),
    announce: useWrite((body: Schemas['AnnouncementCreate']) => unwrap(api.POST('/status-pages/{id}/announcements', { params: { path: { id } }, body }))),
    postUpdate: useWrite(({ announcementId, ...body }: Schemas['AnnouncementEntryCreate'] & { announcementId: number }) =>
      unwrap(api.POST('/status-pages/{id}/announcements/{announcementId}/updates', { params: { path: { id, announcementId } }, body })),
    ),
    verify: useWrite(() => unwrap(api.POST('/status-pages/{id}/verify-domain', { params: { path: { id } } }))),
  };
}

export function useCreatePage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['StatusPageCreate']) => unwrap(api.POST('/status-pages', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: pageKeys.all }),
  });
}

/** The public surfaces of a page, on this origin (the dashboard and the public pages are served together). */
export function publicLinks(slug: string) {
  const origin = window.location.origin;
  const base = `${origin}/api/public/status/${slug}`;
  return {
    page: `${origin}/status/${slug}`,
    rss: `${base}/feed.rss`,
    atom: `${base}/feed.atom`,
    badge: `${base}/badge.svg`,
    widget: `<div data-vigil-status="${slug}"></div>\n<script async src="${base}/widget.js"></script>`,
  };
}
