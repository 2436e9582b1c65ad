import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { useChannels } from '../channels/api';
import { useTeams } from '../teams/api';
import type { Target } from './api';

export const useMembers = (workspaceId: number | null) =>
  useQuery({
    queryKey: ['workspace-members', workspaceId ?? 0],
    enabled: workspaceId !== null,
    queryFn: () => unwrap(api.GET('/workspaces/{id}/members', { params: { path: { id: workspaceId ?? 0 } } })),
  });

const useSchedules = (workspaceId: number | null) =>
  useQuery({
    queryKey: ['on-call-schedules', 'names', workspaceId ?? 0],
    enabled: workspaceId !== null,
    queryFn: async () => (await unwrap(api.GET('/on-call-schedules', { params: { query: { workspaceId: workspaceId ?? 0, limit: 100 } } }))).items,
  });

type Option = { id: number; label: string };
export type Lookups = Record<Target['targetType'], Option[]>;

/** Everything a step may target, as options with names, read through the query cache. */
export function useTargetOptions(workspaceId: number | null): { options: Lookups; ready: boolean } {
  const channels = useChannels(workspaceId);
  const members = useMembers(workspaceId);
  const teams = useTeams(workspaceId);
  const schedules = useSchedules(workspaceId);
  return {
    ready: !channels.isPending && !members.isPending && !teams.isPending && !schedules.isPending,
    options: {
      ALERT_CHANNEL: (channels.data ?? []).map((c) => ({ id: c.id, label: c.name })),
      USER: (members.data ?? []).map((m) => ({ id: m.userId, label: m.name ?? m.email })),
      TEAM: (teams.data ?? []).map((t) => ({ id: t.id, label: t.name })),
      ON_CALL_SCHEDULE: (schedules.data ?? []).map((s) => ({ id: s.id, label: s.name })),
    },
  };
}

export const KIND_LABEL: Record<Target['targetType'], string> = { ALERT_CHANNEL: 'Alert channel', USER: 'Person', TEAM: 'Team', ON_CALL_SCHEDULE: 'On-call schedule' };

export function targetId(target: Target): number {
  switch (target.targetType) {
    case 'ALERT_CHANNEL':
      return target.alertChannelId;
    case 'USER':
      return target.targetUserId;
    case 'ON_CALL_SCHEDULE':
      return target.targetScheduleId;
    case 'TEAM':
      return target.targetTeamId;
  }
}

export function makeTarget(kind: Target['targetType'], id: number): Target {
  switch (kind) {
    case 'ALERT_CHANNEL':
      return { targetType: kind, alertChannelId: id };
    case 'USER':
      return { targetType: kind, targetUserId: id };
    case 'ON_CALL_SCHEDULE':
      return { targetType: kind, targetScheduleId: id };
    case 'TEAM':
      return { targetType: kind, targetTeamId: id };
  }
}

export const nameOf = (options: Lookups, target: Target): string => options[target.targetType].find((o) => o.id === targetId(target))?.label ?? `#${targetId(target)}`;
