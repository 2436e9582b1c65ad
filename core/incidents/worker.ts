import { knownAlertCheck } from '../checks/alertCheck.js';
import { CheckStatusChanged, DependenciesReported } from '../checks/events.js';
import { readCheckById } from '../checks/repository.js';
import { ensureReportedDependency, linkReportingCheck, recordReportedStatus } from '../checks/dependencyRegistry.js';
import type { AlertHandOff, Deps } from '../deps.js';
import { consumeMessages, handler, type HandlerTable } from '../outbox/consumer.js';
import type { QueueMessage } from '../ports/index.js';
import { newBatchReads } from '../store/batchReads.js';
import type { CheckItem } from '../store/entities/check.js';
import { windowEffects } from '../windows/holds.js';
import { endAwaitingRecovery, episodeKeyFor, openEpisodesOfCheck, openOrRaiseEpisode, resolveEpisode } from './episodes.js';
import { IncidentTimelineOwed, IntegrationIncidentChanged } from './events.js';
import { applyIncidentInput, openIncidentsOfCheck, readIncident, writeIncidentEvent } from './repository.js';
import type { ResolveCause } from './transition.js';
import { onCheckStatusChangedForPages, onDependenciesReportedForPages, onIntegrationIncidentChangedForPages } from '../statuspages/hooks.js';
import { broadcast, checkEvent, incidentEvent } from '../signals/streamEvents.js';

/**
 * A probe flip reaches the signal streams from here, not from the probe: probe Lambdas run in
 * other regions with no WebSocket API to post to (they get neither its endpoint nor
 * ManageConnections); this worker runs in the home region and has both, and the embedded runtime
 * takes the same path. The check's stored state is sent, and only while it still says what the
 * message says, so a late redelivery never rewinds a dashboard.
 */
async function streamProbeFlip(deps: Deps, change: CheckStatusChanged): Promise<void> {
  if (change.cause !== 'PROBE') return;
  const check = await readCheckById(deps, change.checkId);
  if (!check || check.workspaceId !== change.workspaceId || check.status !== change.to) return;
  await broadcast(deps, [checkEvent(check)]);
}

/**
 * The consumer of the `incidents` queue (core/outbox/consumer.ts): check status changes, reported
 * dependencies, the timeline events an incident writer owed, and integration incidents' changes
 * for the status pages that follow them. Types it does not know, such as
 * latency and SSL-expiry warnings published here before they moved to the `alerts` queue, are
 * acknowledged without a word.
 */
export async function handleIncidentMessages(deps: Deps, messages: QueueMessage[], options: { alertHandOff?: AlertHandOff | undefined } = {}): Promise<{ failedIds: string[] }> {
  // No handler here asks for a delay (only alert receivers send Retry-After).
  // One batch's messages share their configuration reads (core/store/batchReads.ts), and the
  // alerts the incidents they write owe are sent here where the runtime says so (core/runtime.ts).
  const batchDeps: Deps = { ...deps, batchReads: newBatchReads(), ...(options.alertHandOff ? { alertHandOff: options.alertHandOff } : {}) };
  const { failedIds } = await consumeMessages('incidents', incidentHandlers(batchDeps), messages);
  return { failedIds };
}

function incidentHandlers(deps: Deps): HandlerTable {
  return {
    [CheckStatusChanged.shape.type.value]: handler(CheckStatusChanged, async (message) => {
      await onStatusChanged(deps, message, deps.clock.now());
      await onCheckStatusChangedForPages(deps, message);
      await streamProbeFlip(deps, message);
    }),
    [DependenciesReported.shape.type.value]: handler(DependenciesReported, async (message) => {
      await onDependenciesReported(deps, message, deps.clock.now());
      await onDependenciesReportedForPages(deps, message);
    }),
    [IncidentTimelineOwed.shape.type.value]: handler(IncidentTimelineOwed, (owed) => appendOwedTimeline(deps, owed)),
    [IntegrationIncidentChanged.shape.type.value]: handler(IntegrationIncidentChanged, (changed) => onIntegrationIncidentChangedForPages(deps, changed.integrationId)),
  };
}

/** Timeline events an incident writer owed (core/incidents/repository.ts): each is appended once, by its key. */
async function appendOwedTimeline(deps: Deps, owed: IncidentTimelineOwed): Promise<void> {
  const now = deps.clock.now();
  let wrote = false;
  for (const effect of owed.effects) wrote = (await writeIncidentEvent(deps, owed, effect, now)) || wrote;
  // Usually the writer appended these itself; only entries written here are news to a viewer.
  const incident = wrote ? await readIncident(deps, owed.incidentId) : undefined;
  if (incident) await broadcast(deps, [incidentEvent(incident, 'timeline')]);
}

async function onStatusChanged(deps: Deps, message: CheckStatusChanged, now: Date): Promise<void> {
  if (message.cause === 'DELETE') return resolveAllOfCheck(deps, message.checkId, 'CHECK_DELETED', message.at, now);
  if (message.cause === 'DEPLOYMENT' && message.to === 'PAUSED') return resolveAllOfCheck(deps, message.checkId, 'DEPLOYMENT_PAUSED', message.at, now);
  const service = { checkId: message.checkId, episodeKey: episodeKeyFor({ reason: 'SERVICE_DOWN' }) };
  if (message.to === 'OK') {
    // The next successful ping resolves the episode from LATE as well as from DOWN (docs/guide/incidents.md).
    await resolveEpisode(deps, service, { cause: 'RECOVERED', at: message.at }, now);
    return;
  }
  // Monitoring restarts on resume, so a failure after it is news even if a person resolved the
  // incident of the outage before the pause by hand and no recovery was seen since.
  if (message.to === 'RESUMED') return endAwaitingRecovery(deps, service, message.at);
  if (message.to !== 'LATE' && message.to !== 'DOWN') return;
  const check = await checkOfChange(deps, message);
  if (!check) return;
  if ((await windowEffects(deps, { workspaceId: check.workspaceId, projectId: check.projectId ?? null }, new Date(message.at))).suppressIncidents) return;
  const down = message.to === 'DOWN';
  await openOrRaiseEpisode(
    deps,
    service,
    { ...targetOf(check), title: `${check.name} is ${down ? 'down' : 'late'}`, reason: 'SERVICE_DOWN', declared: false },
    {
      severity: down ? check.downSeverity : check.lateSeverity,
      at: message.at,
      message: `Check "${check.name}" went ${message.to} (${message.cause.toLowerCase().replace('_', ' ')})`,
      // The incident a late check opened says "down" once the check is.
      retitle: down,
    },
    now,
    // Up until this change: its episode most likely has nothing open, so it is claimed unread.
    { wasUp: message.from === 'OK' || message.from === 'NEW' },
  );
}

type ChangedCheck = Pick<CheckItem, 'checkId' | 'workspaceId' | 'projectId' | 'name' | 'lateSeverity' | 'downSeverity'>;

/**
 * The check as the write that moved it saw it, when the message carries it (the sweep's flips do):
 * a mass outage is thousands of these, and a read per message was a store request per flip. A check
 * deleted since still has its incident opened here, and the deletion's own message resolves it; a
 * deletion handled first has moved the episode's watermark past this change, which opens nothing.
 */
async function checkOfChange(deps: Deps, message: CheckStatusChanged): Promise<ChangedCheck | undefined> {
  if (!message.check) return readCheckById(deps, message.checkId);
  const { name, muted } = message.check;
  if (muted !== undefined) knownAlertCheck(deps, { checkId: message.checkId, name, muteNotifications: muted });
  return { ...message.check, checkId: message.checkId, workspaceId: message.workspaceId, ...(message.projectId !== null ? { projectId: message.projectId } : {}) };
}

const targetOf = (check: Pick<CheckItem, 'workspaceId' | 'projectId' | 'checkId'>) => ({ workspaceId: check.workspaceId, projectId: check.projectId, checkId: check.checkId });

/** Check deleted, or paused by a deployment: every open incident of the check ends. */
async function resolveAllOfCheck(deps: Deps, checkId: number, cause: ResolveCause, at: string, now: Date): Promise<void> {
  const episodes = await openEpisodesOfCheck(deps, checkId);
  for (const episode of episodes) await resolveEpisode(deps, episode, { cause, at }, now);
  // With no outage open, a deletion still ends the episode: a flip it overtook in the queue, which
  // carries its check and so does not find it gone (checkOfChange), then opens nothing.
  const service = { checkId, episodeKey: episodeKeyFor({ reason: 'SERVICE_DOWN' }) };
  if (cause === 'CHECK_DELETED' && !episodes.some((e) => e.episodeKey === service.episodeKey)) await resolveEpisode(deps, service, { cause, at }, now);
  const inEpisodes = new Set(episodes.map((e) => e.openIncidentId));
  // Declared incidents about the check belong to no episode; the index finds them.
  for (const incident of await openIncidentsOfCheck(deps, checkId)) {
    if (!inEpisodes.has(incident.incidentId)) await applyIncidentInput(deps, incident.incidentId, { type: 'resolve', cause, at }, now);
  }
}

async function onDependenciesReported(deps: Deps, message: DependenciesReported, now: Date): Promise<void> {
  const check = await readCheckById(deps, message.checkId);
  if (!check) return;
  // One verdict per name (the last one listed), names compared as the registry does.
  const verdicts = new Map<string, { name: string; status: 'ok' | 'down' }>();
  for (const reported of message.dependencies) {
    const name = reported.name.trim();
    if (name.length === 0 || name.length > 255) continue;
    verdicts.set(name.toLowerCase(), { name, status: reported.status });
  }
  if (verdicts.size === 0) return;
  let suppressed: boolean | undefined;
  for (const { name, status } of verdicts.values()) {
    const dependency = await ensureReportedDependency(deps, check.workspaceId, name, now);
    if (!dependency) continue; // the workspace is at its plan's dependency limit
    await linkReportingCheck(deps, dependency, check.checkId, now);
    await recordReportedStatus(deps, dependency, status, message.at);
    const episode = { checkId: check.checkId, episodeKey: episodeKeyFor({ reason: 'DEPENDENCY_DOWN', dependencyId: dependency.dependencyId }) };
    if (status === 'ok') {
      await resolveEpisode(deps, episode, { cause: 'DEPENDENCY_RECOVERED', at: message.at }, now);
      continue;
    }
    suppressed ??= (await windowEffects(deps, { workspaceId: check.workspaceId, projectId: check.projectId ?? null }, new Date(message.at))).suppressIncidents;
    if (suppressed) continue;
    await openOrRaiseEpisode(
      deps,
      episode,
      {
        ...targetOf(check),
        dependencyId: dependency.dependencyId,
        dependencyName: dependency.name,
        title: `${dependency.name} is down`,
        reason: 'DEPENDENCY_DOWN',
        declared: false,
      },
      { severity: check.downSeverity, at: message.at, message: `Dependency "${dependency.name}" reported down by check "${check.name}"` },
      now,
    );
  }
}
