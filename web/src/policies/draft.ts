import type { Policy, PolicyDraft, Rule, StepInput, Target } from './api';
import { makeTarget, targetId } from './lookups';

/** The editor's state: strings as typed, ids 0 until chosen; `toSteps` says whether it is sendable. */
type DraftTarget = { kind: Target['targetType']; id: number };
export type DraftStep = { key: number; delay: string; targets: DraftTarget[] };
export type Draft = {
  name: string;
  priority: string;
  catchAll: boolean;
  projectIds: number[];
  /** Kept as the policy has them (set through the API): the editor does not show them yet, and a save must not drop them. */
  integrationIds: number[];
  ackTimeout: string;
  repeatCount: string;
  enabled: boolean;
  steps: DraftStep[];
};

let nextKey = 1;
const newKey = () => nextKey++;

export const emptyStep = (delay: string): DraftStep => ({ key: newKey(), delay, targets: [{ kind: 'ALERT_CHANNEL', id: 0 }] });

export function fromPolicy(policy: Policy): Draft {
  return {
    name: policy.name,
    priority: String(policy.priority),
    catchAll: policy.projectIds === null,
    projectIds: policy.projectIds ?? [],
    integrationIds: policy.integrationIds,
    ackTimeout: policy.ackTimeoutMinutes === null ? '' : String(policy.ackTimeoutMinutes),
    repeatCount: String(policy.repeatCount),
    enabled: policy.enabled,
    steps: [...policy.steps]
      .sort((a, b) => a.position - b.position)
      .map((s) => ({ key: newKey(), delay: String(s.delayMinutes), targets: s.targets.map((t) => ({ kind: t.targetType, id: targetId(t) })) })),
  };
}

export const blankDraft = (priority: number): Draft => ({
  name: '',
  priority: String(priority),
  catchAll: true,
  projectIds: [],
  integrationIds: [],
  ackTimeout: '',
  repeatCount: '0',
  enabled: true,
  steps: [emptyStep('0')],
});

/** A project's legacy rules as one policy for that project: one step per distinct delay, its channels as targets. */
export function fromRules(projectName: string, projectId: number, rules: readonly Rule[], priority: number): Draft {
  const byDelay = new Map<number, number[]>();
  for (const rule of [...rules].filter((r) => r.enabled).sort((a, b) => a.delayMinutes - b.delayMinutes)) {
    byDelay.set(rule.delayMinutes, [...(byDelay.get(rule.delayMinutes) ?? []), rule.alertChannelId]);
  }
  return {
    ...blankDraft(priority),
    name: `${projectName} (from legacy rules)`,
    catchAll: false,
    projectIds: [projectId],
    steps: [...byDelay].map(([delay, channels]) => ({ key: newKey(), delay: String(delay), targets: channels.map((id) => ({ kind: 'ALERT_CHANNEL' as const, id })) })),
  };
}

const wholeNumber = (s: string): number | null => (/^\d+$/.test(s.trim()) ? Number(s) : null);

/** The steps as the API takes them, or null while a delay or a target is not filled in. */
export function toSteps(draft: Draft): StepInput[] | null {
  const steps: StepInput[] = [];
  for (const [position, step] of draft.steps.entries()) {
    const delayMinutes = wholeNumber(step.delay);
    if (delayMinutes === null || step.targets.length === 0 || step.targets.some((t) => t.id === 0)) return null;
    steps.push({ position, delayMinutes, targets: step.targets.map((t) => makeTarget(t.kind, t.id)) });
  }
  return steps.length === 0 ? null : steps;
}

/** The body of a create or update; numbers the API validates (and answers per field) pass through as typed. */
export function toBody(draft: Draft): PolicyDraft {
  return {
    name: draft.name,
    priority: Number(draft.priority),
    projectIds: draft.catchAll ? null : draft.projectIds,
    integrationIds: draft.integrationIds,
    ackTimeoutMinutes: draft.ackTimeout.trim() === '' ? null : Number(draft.ackTimeout),
    repeatCount: Number(draft.repeatCount || '0'),
    enabled: draft.enabled,
    steps:
      toSteps(draft) ??
      draft.steps.map((s, position) => ({ position, delayMinutes: Number(s.delay), targets: s.targets.filter((t) => t.id !== 0).map((t) => makeTarget(t.kind, t.id)) })),
  };
}
