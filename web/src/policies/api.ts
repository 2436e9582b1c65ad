import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';

export type Policy = Schemas['EscalationPolicy'];
export type Target = Schemas['EscalationTarget'];
export type StepInput = Schemas['EscalationStepInput'];
export type Simulation = Schemas['EscalationSimulation'];
export type Rule = Schemas['EscalationRule'];
export type PolicyDraft = Omit<Schemas['EscalationPolicyCreate'], 'workspaceId'>;

const policyKeys = {
  all: ['escalation-policies'] as const,
  list: (workspaceId: number) => ['escalation-policies', 'list', workspaceId] as const,
  detail: (id: number) => ['escalation-policies', 'detail', id] as const,
  preview: (draft: object) => ['escalation-policies', 'preview', draft] as const,
  rules: (projectId: number) => ['escalation-rules', projectId] as const,
};

/** Every policy of the workspace, in priority order (the API's page of at most 100: MAX_PRIORITY allows more, a workspace needs far fewer). */
export const usePolicies = (workspaceId: number | null) =>
  useQuery({
    queryKey: policyKeys.list(workspaceId ?? 0),
    enabled: workspaceId !== null,
    queryFn: async () =>
      (await unwrap(api.GET('/escalation-policies', { params: { query: { workspaceId: workspaceId ?? 0, limit: 100 } } }))).items.sort(
        (a, b) => a.priority - b.priority || a.id - b.id,
      ),
  });

export const usePolicy = (id: number) =>
  useQuery({ queryKey: policyKeys.detail(id), enabled: Number.isInteger(id) && id > 0, queryFn: () => unwrap(api.GET('/escalation-policies/{id}', { params: { path: { id } } })) });

/** The ids a target names, as one comparable key ("ALERT_CHANNEL:3"). */
function targetKey(target: Target): string {
  switch (target.targetType) {
    case 'ALERT_CHANNEL':
      return `ALERT_CHANNEL:${target.alertChannelId}`;
    case 'USER':
      return `USER:${target.targetUserId}`;
    case 'ON_CALL_SCHEDULE':
      return `ON_CALL_SCHEDULE:${target.targetScheduleId}`;
    case 'TEAM':
      return `TEAM:${target.targetTeamId}`;
  }
}

/** The policies that name `key` in any step. */
export const policiesUsing = (policies: readonly Policy[], key: string): Policy[] => policies.filter((p) => p.steps.some((s) => s.targets.some((t) => targetKey(t) === key)));

/**
 * The live preview: "for an incident now", who is told and when, for the steps as they stand in
 * the editor (nothing is saved). The previous answer stays on screen while the next one loads.
 */
export const usePreview = (workspaceId: number, draft: { repeatCount: number; steps: StepInput[] } | null) =>
  useQuery({
    queryKey: policyKeys.preview({ workspaceId, ...draft }),
    enabled: draft !== null,
    placeholderData: keepPreviousData,
    retry: false,
    queryFn: () => unwrap(api.POST('/escalation-policies/simulate', { body: { workspaceId, repeatCount: draft?.repeatCount ?? 0, steps: draft?.steps ?? [] } })),
  });

export function useSavePolicy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, workspaceId, draft }: { id: number | null; workspaceId: number; draft: PolicyDraft }) =>
      id === null
        ? unwrap(api.POST('/escalation-policies', { body: { ...draft, workspaceId } }))
        : unwrap(api.PUT('/escalation-policies/{id}', { params: { path: { id } }, body: draft })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: policyKeys.all }),
  });
}

export function useDeletePolicy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/escalation-policies/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: policyKeys.all }),
  });
}

/**
 * Swaps two policies' priorities. Priorities are unique per workspace (the API holds a lock per
 * value), so the first moves to a free value while the second takes its place.
 */
export function useSwapPriority() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ a, b, free }: { a: Policy; b: Policy; free: number }) => {
      const put = (id: number, priority: number) => unwrap(api.PUT('/escalation-policies/{id}', { params: { path: { id } }, body: { priority } }));
      await put(a.id, free);
      await put(b.id, a.priority);
      await put(a.id, b.priority);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: policyKeys.all }),
  });
}

export const useRules = (projectId: number) =>
  useQuery({ queryKey: policyKeys.rules(projectId), queryFn: async () => (await unwrap(api.GET('/escalation-rules', { params: { query: { projectId, limit: 100 } } }))).items });

export function useDeleteRules() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (ids: number[]) => {
      for (const id of ids) await unwrap(api.DELETE('/escalation-rules/{id}', { params: { path: { id } } }));
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['escalation-rules'] }),
  });
}
