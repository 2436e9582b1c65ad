import type { TestContext } from '../harness.js';
import type { CheckStatusChanged, DependenciesReported } from '../../core/checks/events.js';
import type { IncidentResponse } from '../../core/incidents/schema.js';

/** Shared steps of the incident and dependency tests (not a test file itself). */
import type { User } from './users.js';

export type { User };
export type CreatedCheck = { id: number; token: string; name: string; projectId: number | null; workspaceId: number };
export type Page<T> = { items: T[]; total: number; page: number; itemCount: number; pageCount: number; limit: number };
export type IncidentBody = IncidentResponse;

export async function createCheck(t: TestContext, user: User, extra: Record<string, unknown> = {}): Promise<CreatedCheck> {
  const res = await t.request<{ id: number; token: string; name: string; projectId: number | null }>('POST', '/checks', {
    token: user.token,
    body: { name: 'nightly backup', projectId: user.projectId, intervalSeconds: 300, graceSeconds: 30, lateSeverity: 'P3', downSeverity: 'P1', ...extra },
  });
  if (res.status !== 201) throw new Error(`create check failed: ${res.status} ${res.text}`);
  return { ...res.body, workspaceId: user.workspaceId };
}

export function statusChanged(
  check: CreatedCheck,
  from: CheckStatusChanged['from'],
  to: CheckStatusChanged['to'],
  at: Date,
  cause: CheckStatusChanged['cause'] = 'SWEEP',
): CheckStatusChanged {
  return { type: 'check.status_changed', checkId: check.id, workspaceId: check.workspaceId, projectId: check.projectId, from, to, at: at.toISOString(), cause };
}

export function reported(check: CreatedCheck, at: Date, dependencies: DependenciesReported['dependencies']): DependenciesReported {
  return { type: 'dependencies.reported', checkId: check.id, workspaceId: check.workspaceId, projectId: check.projectId, dependencies, at: at.toISOString() };
}

/** Publishes on the incidents queue and drains it: the consumer wired by createLocalDeps handles it. */
export async function deliver(t: TestContext, ...messages: unknown[]): Promise<void> {
  await t.deps.queue.publish('incidents', messages);
  await t.deps.queue.drain();
}

export async function incidentsOf(t: TestContext, user: User, query = ''): Promise<Page<IncidentBody>> {
  const res = await t.request<Page<IncidentBody>>('GET', `/incidents?workspaceId=${user.workspaceId}${query}`, { token: user.token });
  if (res.status !== 200) throw new Error(`list incidents failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function addMember(t: TestContext, owner: User, member: User, role: 'ADMIN' | 'MEMBER' | 'VIEWER'): Promise<void> {
  const res = await t.request('POST', `/workspaces/${owner.workspaceId}/members`, { token: owner.token, body: { email: member.email, role } });
  if (res.status !== 201) throw new Error(`add member failed: ${res.status} ${res.text}`);
}
