/**
 * Who is told about an incident of a project (docs/guide/oncall-and-escalation.md):
 * 1. the enabled policy with the lowest priority among those whose projectIds contain the
 *    project (null = catch-all), or whose integrationIds contain the integration that opened it;
 * 2. else the project's enabled legacy rules, by delay;
 * 3. else every enabled alert channel of the workspace at once (a new workspace with one channel).
 * Pure: the caller reads the workspace's policies, the project's rules and the channels.
 */
export type PolicyLike = { id: number; priority: number; enabled: boolean; projectIds: readonly number[] | null; integrationIds?: readonly number[] | undefined };
export type RuleLike = { id: number; projectId: number; delayMinutes: number; enabled: boolean };
export type ChannelLike = { id: number; enabled: boolean };

export type Choice<P, R, C> = { kind: 'policy'; policy: P } | { kind: 'rules'; rules: R[] } | { kind: 'channels'; channels: C[] };

export function choosePolicy<P extends PolicyLike, R extends RuleLike, C extends ChannelLike>(
  projectId: number,
  policies: readonly P[],
  rules: readonly R[],
  channels: readonly C[],
  integrationId?: number,
): Choice<P, R, C> {
  let best: P | undefined;
  for (const policy of policies) {
    if (!policy.enabled) continue;
    const selects = policy.projectIds === null || policy.projectIds.includes(projectId) || (integrationId !== undefined && (policy.integrationIds ?? []).includes(integrationId));
    if (!selects) continue;
    if (!best || policy.priority < best.priority || (policy.priority === best.priority && policy.id < best.id)) best = policy;
  }
  if (best) return { kind: 'policy', policy: best };
  const applicable = rules.filter((r) => r.enabled && r.projectId === projectId).sort((a, b) => a.delayMinutes - b.delayMinutes || a.id - b.id);
  if (applicable.length > 0) return { kind: 'rules', rules: applicable };
  return { kind: 'channels', channels: channels.filter((c) => c.enabled).sort((a, b) => a.id - b.id) };
}
