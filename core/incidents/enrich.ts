import type { Actor } from '../context.js';
import type { Deps } from '../deps.js';
import { seesPingToken } from '../checks/present.js';
import type { CheckItem } from '../store/entities/check.js';
import type { IncidentItem } from '../store/entities/incident.js';
import type { SignalItem } from '../store/entities/signal.js';
import type { IncidentResponse } from './schema.js';

/** Memoised reads for one response: a page of incidents often shares checks and projects. */
function memo<K, V>(load: (key: K) => Promise<V>): (key: K) => Promise<V> {
  const cache = new Map<K, Promise<V>>();
  return (key) => {
    let hit = cache.get(key);
    if (!hit) {
      hit = load(key);
      cache.set(key, hit);
    }
    return hit;
  };
}

type SignalSummary = { last: SignalItem | undefined; lastSuccessAt: string | undefined };

// A check that has sent many failures in a row should not make one incident read cost more.
const SUCCESS_SEARCH_PAGES = 3;

/**
 * The incident as the dashboard shows it: the stored fields plus project, check, dependency,
 * who acknowledged it, and what the check's newest signals say (read from the signal entity;
 * expired signals are ignored like everywhere else). `check.token` is null for a read_only key,
 * as on `/v1/jobs`: an incident must not hand out the secret its check's own view withholds.
 */
export function incidentEnricher(deps: Deps, now: Date, actor: Actor): (incident: IncidentItem) => Promise<IncidentResponse> {
  const { entities } = deps.store;
  const revealToken = seesPingToken(actor);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const project = memo(async (projectId: number) => (await entities.project.get({ projectId }).go()).data ?? undefined);
  const user = memo(async (userId: number) => (await entities.user.get({ userId }).go()).data ?? undefined);
  const dependency = memo(async (dependencyId: number) => (await entities.dependency.get({ dependencyId }).go()).data ?? undefined);
  // Deleted checks included: a resolved incident still names the check it was about.
  const check = memo(async (checkId: number): Promise<CheckItem | undefined> => {
    const ref = (await entities.checkRef.get({ checkId }).go()).data;
    return ref ? ((await entities.check.get({ token: ref.token }).go()).data ?? undefined) : undefined;
  });
  const signals = memo(async (checkId: number): Promise<SignalSummary> => {
    const live = entities.signal.query.byCheck({ checkId }).where((attr, op) => op.gt(attr.expiresAt, nowSeconds));
    const [last] = (await live.go({ order: 'desc', count: 1 })).data;
    const success =
      last?.type === 'SUCCESS'
        ? last
        : (
            await entities.signal.query
              .byCheck({ checkId })
              .where((attr, op) => `${op.gt(attr.expiresAt, nowSeconds)} AND ${op.eq(attr.type, 'SUCCESS')}`)
              .go({ order: 'desc', count: 1, pages: SUCCESS_SEARCH_PAGES })
          ).data[0];
    return { last, lastSuccessAt: success?.receivedAt };
  });

  return async (incident) => {
    const [projectItem, checkItem, dependencyItem, ackUser, signalSummary] = await Promise.all([
      incident.projectId !== undefined ? project(incident.projectId) : undefined,
      incident.checkId !== undefined ? check(incident.checkId) : undefined,
      incident.reason === 'DEPENDENCY_DOWN' && incident.dependencyId !== undefined ? dependency(incident.dependencyId) : undefined,
      incident.acknowledgedBy !== undefined ? user(incident.acknowledgedBy) : undefined,
      incident.checkId !== undefined ? signals(incident.checkId) : undefined,
    ]);
    const lastSuccessAt = signalSummary?.lastSuccessAt ?? checkItem?.lastPingAt ?? null;
    const dependencyName = dependencyItem?.name ?? incident.dependencyName ?? null;
    return {
      ...toIncident(incident),
      project: projectItem ? { id: projectItem.projectId, name: projectItem.name } : null,
      check: checkItem ? { id: checkItem.checkId, name: checkItem.name, token: revealToken ? checkItem.token : null } : null,
      dependency:
        incident.reason === 'DEPENDENCY_DOWN' && incident.dependencyId !== undefined && dependencyName !== null ? { id: incident.dependencyId, name: dependencyName } : null,
      acknowledgedByUser: ackUser ? { id: ackUser.userId, email: ackUser.email } : null,
      lastSignalAt: signalSummary?.last?.receivedAt ?? null,
      lastSignalType: signalSummary?.last?.type ?? null,
      lastSignalSource: signalSummary?.last?.source ?? null,
      lastSuccessAt,
      durationSinceSuccessMs: lastSuccessAt !== null ? Math.max(0, now.getTime() - Date.parse(lastSuccessAt)) : null,
    };
  };
}

/** The stored fields in the spec's names; absent optional attributes are null. */
export const toIncident = (i: IncidentItem) => ({
  id: i.incidentId,
  publicId: i.publicId,
  workspaceId: i.workspaceId,
  projectId: i.projectId ?? null,
  checkId: i.checkId ?? null,
  title: i.title,
  summary: i.summary ?? null,
  state: i.state,
  reason: i.reason,
  severity: i.severity,
  startedAt: i.startedAt,
  resolvedAt: i.resolvedAt ?? null,
  recoveredAt: i.recoveredAt ?? null,
  acknowledgedBy: i.acknowledgedBy ?? null,
  acknowledgedAt: i.acknowledgedAt ?? null,
  dependencyId: i.dependencyId ?? null,
  dependencyName: i.dependencyName ?? null,
  integrationId: i.integrationId ?? null,
  declared: i.declared,
  createdAt: i.createdAt,
  updatedAt: i.updatedAt,
});
