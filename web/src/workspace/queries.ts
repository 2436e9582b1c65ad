import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';

/** Query keys live beside their queries, so a mutation invalidates exactly what it changed. */
export const keys = {
  me: ['me'] as const,
  projects: (workspaceId: number) => ['projects', workspaceId] as const,
  integrations: (workspaceId: number) => ['integrations', workspaceId] as const,
};

export const useMe = () => useQuery({ queryKey: keys.me, queryFn: () => unwrap(api.GET('/me')) });

export const useProjects = (workspaceId: number | null) =>
  useQuery({
    queryKey: keys.projects(workspaceId ?? 0),
    enabled: workspaceId !== null,
    queryFn: () => unwrap(api.GET('/projects', { params: { query: { workspaceId: workspaceId ?? 0 } } })),
  });

/** The workspace's alert integrations (alerts in): status page components and escalation policies may follow them. */
export const useIntegrations = (workspaceId: number | null) =>
  useQuery({
    queryKey: keys.integrations(workspaceId ?? 0),
    enabled: workspaceId !== null,
    queryFn: () => unwrap(api.GET('/integrations', { params: { query: { workspaceId: workspaceId ?? 0 } } })),
  });
