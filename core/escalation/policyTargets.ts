import { conflict } from '../http/errors.js';
import { StoredSteps, targetIdOf, type TargetType } from '../store/entities/escalationPolicy.js';
import type { Store } from '../store/service.js';

export type NamedRef = { id: number; name: string };

/**
 * The escalation policies of a workspace with a step that targets `(targetType, id)`. A
 * workspace has a handful of policies, so one query of them (gsi1) and a look at their steps is
 * the whole cost; no index per target is kept.
 */
export async function policiesTargeting(store: Store, workspaceId: number, targetType: TargetType, id: number): Promise<NamedRef[]> {
  const policies = (await store.entities.escalationPolicy.query.byWorkspace({ workspaceId }).go({ pages: 'all' })).data;
  return policies
    .filter((p) => StoredSteps.parse(JSON.parse(p.stepsJson)).some((step) => step.targets.some((t) => t.targetType === targetType && targetIdOf(t) === id)))
    .map((p) => ({ id: p.policyId, name: p.name }));
}

const listed = (refs: readonly NamedRef[]): string => refs.map((r) => `"${r.name}" (id ${r.id})`).join(', ');

/**
 * Deleting something a policy pages would stop paging silently, so it is refused (409) with the
 * policies named, and the user edits them first (refusing
 * never changes a policy behind its owner's back). A channel used by legacy rules is refused too.
 */
export async function refuseIfTargeted(store: Store, workspaceId: number, targetType: TargetType, id: number, what: string): Promise<void> {
  const policies = await policiesTargeting(store, workspaceId, targetType, id);
  const rules =
    targetType === 'ALERT_CHANNEL'
      ? (await store.entities.escalationRule.query.byChannel({ alertChannelId: id }).go({ pages: 'all' })).data.filter((r) => r.workspaceId === workspaceId)
      : [];
  if (policies.length === 0 && rules.length === 0) return;
  const reasons = [
    ...(policies.length > 0 ? [`escalation policies ${listed(policies)}`] : []),
    ...(rules.length > 0 ? [`escalation rules ${rules.map((r) => r.ruleId).join(', ')}`] : []),
  ];
  throw conflict(`${what} is a target of ${reasons.join(' and ')}; remove it from them first`);
}
