import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';

export type Schedule = Schemas['OnCallSchedule'];
export type Rotation = Schemas['OnCallRotation'];
export type RotationInput = Schemas['OnCallRotationInput'];
export type Shift = Schemas['OnCallShift'];
export type Override = Schemas['OnCallOverride'];
export type Gap = Schemas['OnCallGap'];
export type Member = Schemas['Member'];
export type Range = { from: string; to: string };

/** Every on-call read under one key: a change to a schedule or an override refetches what shows it. */
export const scheduleKeys = {
  all: ['schedules'] as const,
  list: (workspaceId: number) => ['schedules', 'list', workspaceId] as const,
  view: (id: number, kind: 'report', range: Range) => ['schedules', 'view', id, kind, range] as const,
  onCall: (id: number) => ['schedules', 'on-call', id] as const,
  members: (workspaceId: number) => ['members', workspaceId] as const,
};

export const useSchedules = (workspaceId: number) =>
  useQuery({
    queryKey: scheduleKeys.list(workspaceId),
    queryFn: () => unwrap(api.GET('/on-call-schedules', { params: { query: { workspaceId, limit: 100 } } })),
  });

export const useOnCallNow = (id: number) =>
  useQuery({ queryKey: scheduleKeys.onCall(id), queryFn: () => unwrap(api.GET('/on-call-schedules/{id}/on-call', { params: { path: { id }, query: {} } })) });

export const useHoursReport = (id: number, range: Range, enabled: boolean) =>
  useQuery({
    queryKey: scheduleKeys.view(id, 'report', range),
    enabled,
    queryFn: () => unwrap(api.GET('/on-call-schedules/{id}/report', { params: { path: { id }, query: range } })),
  });

export const useMembers = (workspaceId: number) =>
  useQuery({
    queryKey: scheduleKeys.members(workspaceId),
    enabled: workspaceId > 0,
    queryFn: () => unwrap(api.GET('/workspaces/{id}/members', { params: { path: { id: workspaceId } } })),
  });

/** A member's name as the schedule shows it: the name, else the address. */
export const personName = (members: readonly Member[] | undefined, userId: number): string => {
  const member = members?.find((m) => m.userId === userId);
  return member ? (member.name ?? member.email) : `User ${userId}`;
};

const useRefresh = () => {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: scheduleKeys.all });
};

export function useCreateSchedule() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (body: Schemas['OnCallScheduleCreate']) => unwrap(api.POST('/on-call-schedules', { body })),
    onSuccess: refresh,
  });
}

export function useUpdateSchedule(id: number) {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (body: Schemas['OnCallScheduleUpdate']) => unwrap(api.PUT('/on-call-schedules/{id}', { params: { path: { id } }, body })),
    onSuccess: refresh,
  });
}

export function useOverrideMutations() {
  const refresh = useRefresh();
  const create = useMutation({
    mutationFn: (body: Schemas['OnCallOverrideCreate']) => unwrap(api.POST('/on-call-overrides', { body })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/on-call-overrides/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  return { create, remove };
}

export function useCalendarSecret(id: number) {
  const rotate = useMutation({ mutationFn: () => unwrap(api.POST('/on-call-schedules/{id}/calendar-secret', { params: { path: { id } } })) });
  const revoke = useMutation({ mutationFn: () => unwrap(api.DELETE('/on-call-schedules/{id}/calendar-secret', { params: { path: { id } } })) });
  return { rotate, revoke };
}
