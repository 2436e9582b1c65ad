import type { Deps } from '../deps.js';
import { HttpError } from '../http/errors.js';
import { IncidentStillOpening, openOrRaiseEpisode, resolveEpisode } from '../incidents/episodes.js';
import { applyIncidentInput, readIncident } from '../incidents/repository.js';
import type { IntegrationItem } from '../store/entities/integration.js';
import { windowEffects } from '../windows/holds.js';
import type { IntakeAlert } from './intakeAlert.js';

/**
 * An integration's alerts become ordinary incidents through the incidents' own episode
 * machinery (core/incidents/episodes.ts): the episode pointer of (integration, dedupKey) is
 * claimed with a conditional write, so one incident opens per key and episode however often and
 * in whatever order the source delivers; the resolve moves the episode's watermark, so a firing
 * notification older than it (a late or repeated one) opens nothing. The episode items of an
 * integration sit under `checkId` = -integrationId: no check has a negative id, so the two
 * never meet, and no reader lists episodes but by a check's own id.
 */
export const episodeOf = (integrationId: number, dedupKey: string) => ({ checkId: -integrationId, episodeKey: `intake#${dedupKey}` });

/** The project an alert's incident belongs to: its `vigil_project` label (an id or a name in the workspace), else the integration's. */
async function projectOf(deps: Deps, integration: IntegrationItem, alert: IntakeAlert): Promise<number | undefined> {
  const wanted = alert.labels?.vigil_project;
  if (wanted !== undefined) {
    const projects = (await deps.store.entities.project.query.byWorkspace({ workspaceId: integration.workspaceId }).go({ pages: 'all' })).data;
    const found = projects.find((p) => String(p.projectId) === wanted) ?? projects.find((p) => p.name === wanted);
    if (found) return found.projectId;
  }
  if (integration.projectId === undefined) return undefined;
  // A project deleted since: its incidents go to the workspace's catch-all routing instead.
  const project = (await deps.store.entities.project.get({ projectId: integration.projectId }).go()).data;
  return project?.workspaceId === integration.workspaceId ? project.projectId : undefined;
}

/**
 * A resolve or acknowledge that raced the request opening its incident (the episode is claimed,
 * the incident not written yet): 503 with Retry-After, which Alertmanager, Grafana, SNS and
 * PagerDuty senders all retry, and nothing changes. Alerts of the same request applied before it
 * apply again harmlessly on the retry.
 */
const stillOpening = () => new HttpError('INCIDENT_OPENING', 'The incident this alert acts on is still being opened; send it again shortly', undefined, { 'Retry-After': '5' });

/** The source's instant, but never in Vigil's future: a sender's clock ahead of ours must not open an incident that "starts" later. */
function instantOf(alert: IntakeAlert, now: Date): string {
  const at = alert.occurredAt !== undefined ? Date.parse(alert.occurredAt) : Number.NaN;
  return Number.isNaN(at) || at > now.getTime() ? now.toISOString() : new Date(at).toISOString();
}

/**
 * Applies one alert; returns the incident it opened, raised, acknowledged or resolved, if any.
 * Redelivered and out-of-order alerts change nothing (the episode's conditional writes and the
 * transition's own idempotence).
 */
export async function applyIntakeAlert(deps: Deps, integration: IntegrationItem, alert: IntakeAlert, now: Date): Promise<number | undefined> {
  const episode = episodeOf(integration.integrationId, alert.dedupKey);
  const at = instantOf(alert, now);
  if (alert.action === 'resolve') {
    try {
      return (await resolveEpisode(deps, episode, { cause: 'SOURCE_RESOLVED', at }, now))?.incidentId;
    } catch (err) {
      if (err instanceof IncidentStillOpening) throw stillOpening();
      throw err;
    }
  }
  if (alert.action === 'acknowledge') {
    const claimed = (await deps.store.entities.incidentEpisode.get(episode).go({ consistent: true })).data?.openIncidentId;
    if (claimed === undefined) return undefined;
    if (!(await readIncident(deps, claimed))) throw stillOpening();
    const { result } = await applyIncidentInput(deps, claimed, { type: 'acknowledge', by: { kind: 'system' } }, now);
    return result.ok ? claimed : undefined;
  }
  const projectId = await projectOf(deps, integration, alert);
  // As for a check: a maintenance window that suppresses incidents over the project opens none.
  if ((await windowEffects(deps, { workspaceId: integration.workspaceId, projectId: projectId ?? null }, new Date(at))).suppressIncidents) return undefined;
  const opened = await openOrRaiseEpisode(
    deps,
    episode,
    {
      workspaceId: integration.workspaceId,
      projectId,
      integrationId: integration.integrationId,
      title: alert.title,
      summary: alert.description,
      reason: 'SERVICE_DOWN',
      declared: false,
    },
    { severity: alert.severity ?? integration.defaultSeverity, at, message: `Opened by an alert from integration "${integration.name}" (${integration.kind})` },
    now,
  );
  return opened?.incidentId;
}
