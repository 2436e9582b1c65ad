import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';

export type Team = Schemas['Team'];

const teamKeys = {
  all: ['teams'] as const,
  list: (workspaceId: number) => ['teams', 'list', workspaceId] as const,
  detail: (id: number) => ['teams', 'detail', id] as const,
};

export const useTeams = (workspaceId: number | null) =>
  useQuery({
    queryKey: teamKeys.list(workspaceId ?? 0),
    enabled: workspaceId !== null,
    queryFn: async () => (await unwrap(api.GET('/teams', { params: { query: { workspaceId: workspaceId ?? 0, limit: 100 } } }))).items,
  });

export const useTeam = (id: number) =>
  useQuery({ queryKey: teamKeys.detail(id), enabled: Number.isInteger(id) && id > 0, queryFn: () => unwrap(api.GET('/teams/{id}', { params: { path: { id } } })) });

/** Every team write refetches every team query (lists show member counts; the policy preview names members). */
export function useTeamMutations() {
  const queryClient = useQueryClient();
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: teamKeys.all });
    await queryClient.invalidateQueries({ queryKey: ['escalation-policies', 'preview'] });
  };
  return {
    create: useMutation({ mutationFn: (body: Schemas['TeamCreate']) => unwrap(api.POST('/teams', { body })), onSuccess: refresh }),
    update: useMutation({
      mutationFn: ({ id, body }: { id: number; body: Schemas['TeamUpdate'] }) => unwrap(api.PUT('/teams/{id}', { params: { path: { id } }, body })),
      onSuccess: refresh,
    }),
    remove: useMutation({ mutationFn: (id: number) => unwrap(api.DELETE('/teams/{id}', { params: { path: { id } } })), onSuccess: refresh }),
    addMember: useMutation({ mutationFn: (body: Schemas['TeamMemberCreate']) => unwrap(api.POST('/team-members', { body })), onSuccess: refresh }),
    removeMember: useMutation({ mutationFn: (id: number) => unwrap(api.DELETE('/team-members/{id}', { params: { path: { id } } })), onSuccess: refresh }),
  };
}
