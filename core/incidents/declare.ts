import { authorize } from '../auth/authorize.js';
import { readCheckById } from '../checks/repository.js';
import { assertDependenciesInWorkspace } from '../checks/dependencyRegistry.js';
import { HttpError, notFound } from '../http/errors.js';
import type { CheckItem } from '../store/entities/check.js';
import { incidentEnricher } from './enrich.js';
import { actorRef } from './incidents.js';
import type { Ctx } from '../context.js';
import { insertIncident } from './repository.js';
import { describeActor, type Severity } from './transition.js';

export type DeclareInput = {
  title: string;
  description?: string | undefined;
  severity?: Severity | undefined;
  checkId?: number | undefined;
  jobId?: number | undefined;
  dependencyId?: number | undefined;
};

// With no target check to borrow a severity from, a declared incident is "Medium".
const DEFAULT_SEVERITY: Severity = 'P3';

async function checkInWorkspace(ctx: Ctx, workspaceId: number, checkId: number, jobsOnly: boolean): Promise<CheckItem> {
  const check = await readCheckById(ctx.deps, checkId);
  if (!check || check.workspaceId !== workspaceId || (jobsOnly && check.checkType !== 'HEARTBEAT')) throw notFound(jobsOnly ? 'Job' : 'Check');
  return check;
}

/**
 * Declares an incident by hand (Integration API). At most one target; every target must be in
 * the workspace (else 404). Declared incidents stand outside the monitoring episodes: they are
 * resolved by hand, or when their check is deleted or paused by a deployment.
 */
export async function declareIncident(ctx: Ctx, workspaceId: number, input: DeclareInput) {
  await authorize(ctx.deps, ctx.actor, workspaceId, 'MEMBER', 'Workspace');
  const targets = [input.checkId, input.jobId, input.dependencyId].filter((t) => t !== undefined);
  if (targets.length > 1) {
    throw new HttpError('MULTIPLE_INCIDENT_TARGETS', 'Give at most one of checkId, jobId and dependencyId', [
      { path: '(root)', message: 'checkId, jobId and dependencyId are mutually exclusive' },
    ]);
  }
  const checkId = input.checkId ?? input.jobId;
  const check = checkId !== undefined ? await checkInWorkspace(ctx, workspaceId, checkId, input.jobId !== undefined) : undefined;
  const [dependency] = input.dependencyId !== undefined ? await assertDependenciesInWorkspace(ctx.deps, workspaceId, [input.dependencyId]) : [];
  const now = ctx.deps.clock.now();
  const incidentId = await ctx.deps.store.nextId('incident');
  const created = await insertIncident(
    ctx.deps,
    incidentId,
    {
      workspaceId,
      projectId: check?.projectId,
      checkId: check?.checkId,
      dependencyId: dependency?.dependencyId,
      dependencyName: dependency?.name,
      title: input.title,
      summary: input.description,
      reason: dependency ? 'DEPENDENCY_DOWN' : 'SERVICE_DOWN',
      declared: true,
    },
    {
      type: 'open',
      severity: input.severity ?? check?.downSeverity ?? DEFAULT_SEVERITY,
      at: now.toISOString(),
      message: `Declared by ${describeActor(actorRef(ctx.actor))}`,
    },
    now,
  );
  if (!created) throw new Error(`incident id ${incidentId} was taken twice`);
  return incidentEnricher(ctx.deps, now, ctx.actor)(created);
}
