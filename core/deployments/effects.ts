import { createHash } from 'node:crypto';
import { ulid } from 'ulid';
import { pauseCheck, resumeCheck } from '../checks/pause.js';
import { listProjectChecks, readCheckById } from '../checks/repository.js';
import type { Deps } from '../deps.js';
import { HttpError } from '../http/errors.js';
import { SIGNAL_TTL_DAYS } from '../signals/schema.js';
import { putSignal } from '../signals/record.js';
import { broadcast, checkEvent, signalEvent } from '../signals/streamEvents.js';
import type { CheckItem } from '../store/entities/check.js';
import type { DeploymentItem } from '../store/entities/deployment.js';
import type { SignalItem } from '../store/entities/signal.js';
import { deleteHolds, putHolds } from '../windows/holdStore.js';

/** The project-wide hold: while it covers `now`, no check of the project goes LATE or DOWN. */
export async function putDeploymentHold(deps: Deps, d: DeploymentItem): Promise<void> {
  await putHolds(deps, [d.projectId], {
    kind: 'DEPLOYMENT',
    windowId: d.deploymentId,
    workspaceId: d.workspaceId,
    startsAt: d.startedAt,
    ...(d.scheduledEndAt ? { endsAt: d.scheduledEndAt } : {}),
    suppressIncidents: false,
    suppressAlerts: false,
  });
}

export async function deleteDeploymentHold(deps: Deps, d: DeploymentItem): Promise<void> {
  await deleteHolds(deps, [d.projectId], { kind: 'DEPLOYMENT', windowId: d.deploymentId });
}

/** The checks a deployment targets: its checkIds (still live, still in the project) or every check of the project. */
export async function targetChecks(deps: Deps, d: Pick<DeploymentItem, 'projectId' | 'workspaceId' | 'checkIds'>): Promise<CheckItem[]> {
  if (!d.checkIds) return listProjectChecks(deps, d.projectId);
  const found = await Promise.all(d.checkIds.map((checkId) => readCheckById(deps, checkId)));
  return found.filter((c): c is CheckItem => c !== undefined && c.projectId === d.projectId && c.workspaceId === d.workspaceId);
}

/** The targets to pause: those still running, and those an earlier, interrupted pass recorded as ours. */
export async function pauseCandidates(deps: Deps, d: DeploymentItem): Promise<CheckItem[]> {
  const recorded = new Set(d.autoPausedCheckIds);
  return (await targetChecks(deps, d)).filter((c) => c.status !== 'PAUSED' || (recorded.has(c.checkId) && c.deploymentPaused === true));
}

/** The checks by id, from those already read in this run where possible; deleted ones drop out. */
export async function targetsById(deps: Deps, ids: readonly number[], seen: ReadonlyMap<number, CheckItem>): Promise<CheckItem[]> {
  const found = await Promise.all(ids.map(async (checkId) => seen.get(checkId) ?? (await readCheckById(deps, checkId))));
  return found.filter((c): c is CheckItem => c !== undefined);
}

/** A ULID whose random part comes from `seed`: the same signal always gets the same id. */
function stableUlid(at: string, seed: string): string {
  const bytes = createHash('sha256').update(seed).digest();
  let i = 0;
  return ulid(Date.parse(at), () => (bytes[i++ % bytes.length] ?? 0) / 256);
}

/**
 * A DEPLOYMENT signal on one check. Its id and time are fixed by the deployment (`started` at
 * startedAt, `ended` at endedAt), so a repeated step overwrites the same item instead of adding one.
 */
async function recordSignal(deps: Deps, d: DeploymentItem, check: CheckItem, event: 'started' | 'ended'): Promise<void> {
  const at = event === 'started' ? d.startedAt : (d.endedAt ?? d.updatedAt);
  const item: SignalItem = {
    checkId: check.checkId,
    workspaceId: check.workspaceId,
    signalId: stableUlid(at, `deployment:${d.deploymentId}:${event}:${check.checkId}`),
    receivedAt: at,
    type: 'DEPLOYMENT',
    source: 'DEPLOYMENT',
    details: {
      deploymentId: d.deploymentId,
      event,
      name: d.name ?? null,
      version: d.version ?? null,
      author: d.author ?? null,
      link: d.link ?? null,
    },
    expiresAt: Math.floor(Date.parse(at) / 1000) + SIGNAL_TTL_DAYS * 86_400,
  };
  await putSignal(deps, item);
  await broadcast(deps, [signalEvent(item), checkEvent(check)]);
}

/** A check deleted meanwhile is simply no longer a target. */
async function unlessGone<T>(work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return undefined;
    throw err;
  }
}

const CONCURRENCY = 8;

/** Runs `work` over `items`, a few at a time (a project may hold hundreds of checks). */
async function eachLimited<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, lane));
}

/**
 * Pauses each given check that is still running and reports the ones this deployment holds
 * paused afterwards. A check a user paused by hand (PAUSED without deploymentPaused) is left
 * alone and not reported, so the end of the deployment will not resume it.
 */
export async function pauseTargets(deps: Deps, d: DeploymentItem, checks: CheckItem[], now: Date): Promise<number[]> {
  const paused: number[] = [];
  await eachLimited(checks, async (check) => {
    const result = await unlessGone(() => pauseCheck(deps, check, { cause: 'DEPLOYMENT', now }));
    if (result?.status !== 'PAUSED' || result.deploymentPaused !== true) return;
    paused.push(result.checkId);
    await recordSignal(deps, d, result, 'started');
  });
  return paused.sort((a, b) => a - b);
}

/** Resumes the checks this deployment paused that are still paused by a deployment. */
export async function resumePaused(deps: Deps, d: DeploymentItem, ids: readonly number[], now: Date): Promise<void> {
  await eachLimited([...new Set(ids)], async (checkId) => {
    const check = await readCheckById(deps, checkId);
    if (!check || check.status !== 'PAUSED' || check.deploymentPaused !== true) return;
    const result = await unlessGone(() => resumeCheck(deps, check, { cause: 'DEPLOYMENT', now }));
    if (result?.status === 'RESUMED') await recordSignal(deps, d, result, 'ended');
  });
}
