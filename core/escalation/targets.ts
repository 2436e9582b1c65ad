import { findAlertChannelInWorkspace } from '../alerting/channels.js';
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import { requireWorkspaceMembers } from '../oncall/people.js';
import { findScheduleInWorkspace } from '../oncall/schedules.js';
import { findTeamInWorkspace } from '../oncall/teams.js';
import type { StepInput } from './schema.js';

/** Every id a policy names must be of its workspace (404 otherwise, like any foreign id). */
export async function requireTargetsInWorkspace(deps: Deps, workspaceId: number, steps: readonly StepInput[]): Promise<void> {
  const targets = steps.flatMap((s) => s.targets);
  const users: number[] = [];
  const checks: Promise<unknown>[] = [];
  for (const target of targets) {
    if (target.targetType === 'ALERT_CHANNEL') checks.push(findAlertChannelInWorkspace(deps, workspaceId, target.alertChannelId));
    else if (target.targetType === 'ON_CALL_SCHEDULE') checks.push(findScheduleInWorkspace(deps, workspaceId, target.targetScheduleId));
    else if (target.targetType === 'TEAM') checks.push(findTeamInWorkspace(deps, workspaceId, target.targetTeamId));
    else users.push(target.targetUserId);
  }
  checks.push(requireWorkspaceMembers(deps, workspaceId, users));
  await Promise.all(checks);
}

export async function requireIntegrationsInWorkspace(deps: Deps, workspaceId: number, integrationIds: readonly number[] | undefined): Promise<void> {
  if (!integrationIds || integrationIds.length === 0) return;
  const found = (await deps.store.entities.integration.get([...new Set(integrationIds)].map((integrationId) => ({ integrationId }))).go()).data;
  const ours = new Set(found.filter((i) => i.workspaceId === workspaceId).map((i) => i.integrationId));
  const missing = integrationIds.find((id) => !ours.has(id));
  if (missing !== undefined) throw notFound(`Integration ${missing}`);
}

export async function requireProjectsInWorkspace(deps: Deps, workspaceId: number, projectIds: readonly number[] | null): Promise<void> {
  if (!projectIds || projectIds.length === 0) return;
  const found = (await deps.store.entities.project.get([...new Set(projectIds)].map((projectId) => ({ projectId }))).go()).data;
  const ours = new Set(found.filter((p) => p.workspaceId === workspaceId).map((p) => p.projectId));
  const missing = projectIds.find((id) => !ours.has(id));
  if (missing !== undefined) throw notFound(`Project ${missing}`);
}
