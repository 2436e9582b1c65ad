import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';

export type Dependency = Schemas['Dependency'];
export type DependencyDetail = Schemas['DependencyDetail'];
export type Category = NonNullable<Dependency['category']>;

export const CATEGORIES: Category[] = ['DATABASE', 'CACHE', 'API', 'QUEUE', 'STORAGE', 'OTHER'];
export const CATEGORY_LABEL: Record<Category, string> = { DATABASE: 'Database', CACHE: 'Cache', API: 'API', QUEUE: 'Queue', STORAGE: 'Storage', OTHER: 'Other' };
const PAGE_SIZE = 20;

const dependencyKeys = {
  all: ['dependencies'] as const,
  list: (workspaceId: number, page: number) => ['dependencies', 'list', workspaceId, page] as const,
  detail: (id: number) => ['dependencies', 'detail', id] as const,
};

export const useDependencies = (workspaceId: number | null, page: number) =>
  useQuery({
    queryKey: dependencyKeys.list(workspaceId ?? 0, page),
    enabled: workspaceId !== null,
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(api.GET('/dependencies', { params: { query: { workspaceId: workspaceId ?? 0, page, limit: PAGE_SIZE, orderBy: 'name', order: 'ASC' } } })),
  });

export const useDependency = (id: number) =>
  useQuery({ queryKey: dependencyKeys.detail(id), enabled: Number.isInteger(id) && id > 0, queryFn: () => unwrap(api.GET('/dependencies/{id}', { params: { path: { id } } })) });

export function useDependencyMutations() {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: dependencyKeys.all });
  return {
    create: useMutation({ mutationFn: (body: Schemas['DependencyCreate']) => unwrap(api.POST('/dependencies', { body })), onSuccess: refresh }),
    update: useMutation({
      mutationFn: ({ id, body }: { id: number; body: Schemas['DependencyUpdate'] }) => unwrap(api.PATCH('/dependencies/{id}', { params: { path: { id } }, body })),
      onSuccess: refresh,
    }),
    remove: useMutation({ mutationFn: (id: number) => unwrap(api.DELETE('/dependencies/{id}', { params: { path: { id } } })), onSuccess: refresh }),
  };
}
