import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';

export type Role = Schemas['Role'];
export type ApiKey = Schemas['ApiKey'];

export const settingsKeys = {
  all: ['settings'] as const,
  members: (workspaceId: number) => ['settings', 'members', workspaceId] as const,
  keys: (workspaceId: number) => ['settings', 'api-keys', workspaceId] as const,
  workspace: (workspaceId: number) => ['settings', 'workspace', workspaceId] as const,
  used: (workspaceId: number) => ['settings', 'used', workspaceId] as const,
};

export const useMembers = (workspaceId: number) =>
  useQuery({ queryKey: settingsKeys.members(workspaceId), queryFn: () => unwrap(api.GET('/workspaces/{id}/members', { params: { path: { id: workspaceId } } })) });

export const useApiKeys = (workspaceId: number, enabled: boolean) =>
  useQuery({ queryKey: settingsKeys.keys(workspaceId), enabled, queryFn: () => unwrap(api.GET('/api-keys', { params: { query: { workspaceId } } })) });

export const useWorkspaceDetail = (workspaceId: number) =>
  useQuery({ queryKey: settingsKeys.workspace(workspaceId), queryFn: () => unwrap(api.GET('/workspaces/{id}', { params: { path: { id: workspaceId } } })) });

/** What the plan's limits are measured against: the workspace's checks, and those probing out. */
export const useUsage = (workspaceId: number) =>
  useQuery({
    queryKey: settingsKeys.used(workspaceId),
    queryFn: async () => {
      const count = async (checkMode?: 'OUTBOUND') =>
        (await unwrap(api.GET('/checks', { params: { query: { workspaceId, limit: 1, page: 1, ...(checkMode ? { checkMode } : {}) } } }))).total;
      const [checks, outbound] = await Promise.all([count(), count('OUTBOUND')]);
      return { checks, outbound };
    },
  });

export function useMemberWrites(workspaceId: number) {
  const queryClient = useQueryClient();
  const onSuccess = () => queryClient.invalidateQueries({ queryKey: settingsKeys.members(workspaceId) });
  const id = workspaceId;
  return {
    invite: useMutation({ mutationFn: (body: Schemas['MemberCreate']) => unwrap(api.POST('/workspaces/{id}/members', { params: { path: { id } }, body })), onSuccess }),
    setRole: useMutation({
      mutationFn: ({ userId, role }: { userId: number; role: Role }) =>
        unwrap(api.PATCH('/workspaces/{id}/members/{userId}', { params: { path: { id, userId } }, body: { role } })),
      onSuccess,
    }),
    remove: useMutation({ mutationFn: (userId: number) => unwrap(api.DELETE('/workspaces/{id}/members/{userId}', { params: { path: { id, userId } } })), onSuccess }),
  };
}

export function useKeyWrites(workspaceId: number) {
  const queryClient = useQueryClient();
  const onSuccess = () => queryClient.invalidateQueries({ queryKey: settingsKeys.keys(workspaceId) });
  return {
    create: useMutation({ mutationFn: (body: Schemas['ApiKeyCreate']) => unwrap(api.POST('/api-keys', { body: { ...body, workspaceId } })), onSuccess }),
    setEnabled: useMutation({
      mutationFn: ({ id, enabled }: { id: number; enabled: boolean }) => unwrap(api.PATCH('/api-keys/{id}', { params: { path: { id } }, body: { enabled } })),
      onSuccess,
    }),
    remove: useMutation({ mutationFn: (id: number) => unwrap(api.DELETE('/api-keys/{id}', { params: { path: { id } } })), onSuccess }),
  };
}
