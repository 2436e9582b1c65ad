import type { Actor, Ctx } from '../context.js';
import type { Deps } from '../deps.js';
import { authorize } from '../auth/authorize.js';
import type { Role } from '../auth/roles.js';
import { HttpError, notFound } from '../http/errors.js';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { envelope } from '../http/pagination.js';
import { getAll } from '../store/batch.js';
import { queryProjected } from '../store/projected.js';
import { resolveWorkspaceId } from '../identity/workspaceScope.js';
import type { IncidentItem } from '../store/entities/incident.js';
import { incidentEnricher } from './enrich.js';
import { episodeKeyFor, releaseResolvedEpisode } from './episodes.js';
import { applyIncidentInput, listIncidentEvents, readIncident } from './repository.js';
import type { ActorRef, IncidentInput } from './transition.js';

export const actorRef = (actor: Actor): ActorRef =>
  actor.kind === 'user' ? { kind: 'user', userId: actor.userId, email: actor.email } : { kind: 'apiKey', apiKeyId: actor.apiKeyId, name: actor.name };

/** An incident the caller may act on at `minimum`, or 404: missing and foreign look the same. */
export async function loadIncident(ctx: Ctx, incidentId: number, minimum: Role): Promise<IncidentItem> {
  const incident = await readIncident(ctx.deps, incidentId);
  if (!incident) throw notFound('Incident');
  await authorize(ctx.deps, ctx.actor, incident.workspaceId, minimum, 'Incident');
  return incident;
}

export type IncidentFilter = {
  workspaceId?: number | undefined;
  projectId?: number | undefined;
  checkId?: number | undefined;
  state?: 'ACTIVE' | 'RESOLVED' | undefined;
  page: number;
  limit: number;
};

/**
 * The workspace a list is about: the one the check or project filter lives in (which must match
 * a given workspaceId), else the given or only workspace. Foreign filters are 404s.
 */
async function listScope(ctx: Ctx, filter: IncidentFilter): Promise<number> {
  let owner: number | undefined;
  if (filter.checkId !== undefined) {
    owner = (await ctx.deps.store.entities.checkRef.get({ checkId: filter.checkId }).go()).data?.workspaceId;
    if (owner === undefined) throw notFound('Check');
  }
  if (filter.projectId !== undefined) {
    const projectWorkspace = (await ctx.deps.store.entities.project.get({ projectId: filter.projectId }).go()).data?.workspaceId;
    if (projectWorkspace === undefined || (owner !== undefined && owner !== projectWorkspace)) throw notFound('Project');
    owner = projectWorkspace;
  }
  if (owner !== undefined && filter.workspaceId !== undefined && owner !== filter.workspaceId) {
    throw notFound(filter.checkId !== undefined ? 'Check' : 'Project');
  }
  const workspaceId = owner ?? (await resolveWorkspaceId(ctx, filter.workspaceId));
  await authorize(ctx.deps, ctx.actor, workspaceId, 'VIEWER', filter.checkId !== undefined ? 'Check' : filter.projectId !== undefined ? 'Project' : 'Workspace');
  return workspaceId;
}

/** Newest first, paginated, each incident enriched. */
export async function listIncidents(ctx: Ctx, filter: IncidentFilter) {
  const workspaceId = await listScope(ctx, filter);
  const { incident } = ctx.deps.store.entities;
  const query =
    filter.checkId !== undefined
      ? incident.query.byCheck({ checkId: filter.checkId })
      : filter.projectId !== undefined
        ? incident.query.byProject({ projectId: filter.projectId })
        : incident.query.byWorkspace({ workspaceId });
  // Only what orders and filters the list is read for every incident; the page is read whole.
  type Summary = Pick<IncidentItem, 'incidentId' | 'workspaceId' | 'projectId' | 'state'>;
  const all = (await queryProjected<Summary>(ctx.deps.store, query.params<QueryCommandInput>(), ['incidentId', 'workspaceId', 'projectId', 'state'])).filter(
    (i) =>
      i.workspaceId === workspaceId &&
      (filter.projectId === undefined || i.projectId === filter.projectId) &&
      (filter.state === undefined || (filter.state === 'RESOLVED') === (i.state === 'RESOLVED')),
  );
  all.sort((a, b) => b.incidentId - a.incidentId);
  const wanted = all.slice((filter.page - 1) * filter.limit, filter.page * filter.limit);
  const read = await getAll(
    ctx.deps.store,
    wanted.map(({ incidentId }) => ({ incidentId })),
    (keys) => incident.get(keys).go(),
    'incidents',
  );
  const byId = new Map(read.map((item) => [item.incidentId, item]));
  const items = wanted.map(({ incidentId }) => byId.get(incidentId)).filter((item): item is IncidentItem => item !== undefined);
  const enrich = incidentEnricher(ctx.deps, ctx.deps.clock.now(), ctx.actor);
  return { ...envelope(items, all.length, filter.page, filter.limit), items: await Promise.all(items.map(enrich)) };
}

export async function getIncident(ctx: Ctx, incidentId: number) {
  const incident = await loadIncident(ctx, incidentId, 'VIEWER');
  return incidentEnricher(ctx.deps, ctx.deps.clock.now(), ctx.actor)(incident);
}

async function act(ctx: Ctx, incidentId: number, input: (now: Date) => IncidentInput) {
  await loadIncident(ctx, incidentId, 'MEMBER');
  const now = ctx.deps.clock.now();
  const { incident, result } = await applyIncidentInput(ctx.deps, incidentId, input(now), now);
  if (!result.ok) throw new HttpError('INCIDENT_RESOLVED', `${result.message}; it can no longer be acknowledged or monitored`);
  return { incident, now };
}

/** Idempotent: a second acknowledge returns the first one's acknowledgedBy/acknowledgedAt. 409 once resolved. */
export async function acknowledgeIncident(ctx: Ctx, incidentId: number) {
  const { incident, now } = await act(ctx, incidentId, () => ({ type: 'acknowledge', by: actorRef(ctx.actor) }));
  return incidentEnricher(ctx.deps, now, ctx.actor)(incident);
}

/** ACTIVE -> MONITORING; idempotent; 409 once resolved. */
export async function monitorIncident(ctx: Ctx, incidentId: number) {
  const { incident, now } = await act(ctx, incidentId, () => ({ type: 'monitor', by: actorRef(ctx.actor) }));
  return incidentEnricher(ctx.deps, now, ctx.actor)(incident);
}

/**
 * Manual resolution; resolving a resolved incident returns it unchanged. The check's episode ends
 * with it: the check must recover before a new outage opens a new incident (a LATE or DOWN of the
 * outage still going on opens nothing). Declared incidents belong to no episode.
 */
export async function resolveIncident(ctx: Ctx, incidentId: number) {
  await loadIncident(ctx, incidentId, 'MEMBER');
  const now = ctx.deps.clock.now();
  const { incident } = await resolveByHand(ctx.deps, incidentId, actorRef(ctx.actor), now);
  return incidentEnricher(ctx.deps, now, ctx.actor)(incident);
}

/** A person's resolution, signed in or through a signed alert link (core/alerting/ackLinks.ts): the one path, episode and all. */
export async function resolveByHand(deps: Deps, incidentId: number, by: ActorRef, now: Date) {
  const applied = await applyIncidentInput(deps, incidentId, { type: 'resolve', cause: 'MANUAL', at: now.toISOString(), by }, now);
  const { incident } = applied;
  if (!incident.declared && incident.checkId !== undefined) {
    await releaseResolvedEpisode(deps, { checkId: incident.checkId, episodeKey: episodeKeyFor(incident) }, incident, now);
  }
  return applied;
}

export async function incidentTimeline(ctx: Ctx, incidentId: number) {
  await loadIncident(ctx, incidentId, 'VIEWER');
  return (await listIncidentEvents(ctx.deps, incidentId)).map((e) => ({
    id: e.eventId,
    incidentId: e.incidentId,
    type: e.type,
    message: e.message,
    occurredAt: e.occurredAt,
    actorUserId: e.actorUserId ?? null,
    actorApiKeyId: e.actorApiKeyId ?? null,
  }));
}
