import { z } from '@hono/zod-openapi';
import { timingView } from '../../checks/jobRules.js';
import { downAtOf, lateAtOf } from '../../checks/timing.js';
import type { Ctx } from '../../context.js';
import { incidentTimeline, listIncidents } from '../../incidents/incidents.js';
import { CHECK_STATUSES } from '../../store/entities/check.js';
import { checkDetail, readableCheck, type CheckDetail } from '../checkDetail.js';
import { keyWorkspace } from '../key.js';
import { CheckRef, CheckSummary, CheckTiming, DependencySummary, HoldSummary, IncidentSummary, ProbeSummary, RegionRun, SignalSummary, TimelineEvent } from '../schema.js';
import { statusSince, type Since } from '../since.js';
import { defineTool, type Tool } from '../tool.js';
import { CheckOnCall, onCallForProject } from './onCall.js';
import { checkSummary, incidentSummary } from '../present.js';

const RECENT_SIGNALS = 10;
const INCIDENT_EVENTS = 10;

const OpenIncident = IncidentSummary.extend({
  events: z.array(TimelineEvent).describe(`the newest ${INCIDENT_EVENTS} timeline events, oldest first`),
});

const Explanation = z.object({
  summary: z.string(),
  status: z.enum(CHECK_STATUSES),
  since: z.string().nullable(),
  sinceExact: z.boolean().describe('false: the status began at or before `since` (older history has expired or was not read)'),
  sinceBasis: z.string(),
  check: CheckSummary.extend(CheckTiming),
  lateAt: z.string().nullable().describe('heartbeat jobs: when the job turns (or turned) LATE without a ping: nextDueAt + graceSeconds'),
  downAt: z.string().nullable().describe('heartbeat jobs: when it turns (or turned) DOWN without a ping: nextDueAt + 2 x graceSeconds'),
  recentSignals: z.array(SignalSummary),
  probe: ProbeSummary.nullable(),
  recentRuns: z.array(RegionRun),
  openIncident: OpenIncident.nullable(),
  dependencies: z.array(DependencySummary),
  holds: z.array(HoldSummary),
  onCall: CheckOnCall,
});
type Explanation = z.infer<typeof Explanation>;
type OpenIncident = z.infer<typeof OpenIncident>;

async function openIncidentOf(ctx: Ctx, checkId: number): Promise<OpenIncident | null> {
  const [newest] = (await listIncidents(ctx, { workspaceId: keyWorkspace(ctx), checkId, state: 'ACTIVE', page: 1, limit: 1 })).items;
  if (!newest) return null;
  const events = (await incidentTimeline(ctx, newest.id)).slice(-INCIDENT_EVENTS).map((e) => ({ type: e.type, message: e.message, occurredAt: e.occurredAt }));
  return { ...incidentSummary(newest), events };
}

/** A heartbeat job's instants (docs/adr/0002-grace-before-late.md): due, LATE after the grace, DOWN after it twice. */
type Deadlines = { dueAt: string | null; lateAt: string | null; downAt: string | null };

/** Why the check is where it is, in words: the cause first, then what is being done about it. */
function summarize(detail: CheckDetail, since: Since, incident: OpenIncident | null, deadlines: Deadlines, onCall: CheckOnCall): string {
  const c = detail.check;
  const kind = c.checkMode === 'INBOUND' ? 'heartbeat job' : 'HTTP check';
  const when = since.since === null ? '' : since.exact ? ` since ${since.since}` : ` since at least ${since.since}`;
  const parts = [`${c.name} (#${c.checkId}, ${kind}) is ${c.status}${when}.`];
  if (c.checkMode === 'INBOUND') {
    const lastFail = detail.signals.find((s) => s.type === 'FAIL' && s.source !== 'SYSTEM');
    if (c.status === 'DOWN' && lastFail && since.since === lastFail.receivedAt) {
      parts.push(`The job reported a failure at ${lastFail.receivedAt}${lastFail.payloadPreview ? `: ${lastFail.payloadPreview}` : ''}.`);
    } else if (c.status === 'LATE' || c.status === 'DOWN') {
      // The grace is lateness tolerated: LATE once it has passed, DOWN once it has passed twice.
      const grace =
        c.status === 'LATE'
          ? `turned LATE after its ${c.graceSeconds}s grace at ${deadlines.lateAt ?? '?'}, and it turns DOWN at ${deadlines.downAt ?? '?'} unless it pings`
          : `turned LATE after its ${c.graceSeconds}s grace at ${deadlines.lateAt ?? '?'} and DOWN after ${c.graceSeconds}s more at ${deadlines.downAt ?? '?'}`;
      parts.push(c.lastPingAt ? `No ping since ${c.lastPingAt}; it was due by ${deadlines.dueAt ?? '?'}, ${grace}.` : 'It has never pinged.');
    } else if (c.lastPingAt) {
      parts.push(`Last ping at ${c.lastPingAt}; next due by ${deadlines.dueAt ?? '?'}, LATE after ${deadlines.lateAt ?? '?'} without a ping.`);
    } else {
      parts.push('It has not pinged yet.');
    }
  } else if (detail.probe) {
    const failing = detail.probe.regions.filter((r) => r.ok === false);
    const regions = detail.probe.regions.map((r) =>
      r.lastRunAt === null
        ? `${r.region}: no run yet`
        : r.ok
          ? `${r.region}: ok (${r.statusCode ?? '-'}, ${r.latencyMs ?? '-'} ms)`
          : `${r.region}: ${r.failureReason ?? 'failed'}${r.statusCode ? ` (${r.statusCode})` : ''}`,
    );
    parts.push(`Latest round per region: ${regions.join('; ')}.`);
    if (failing.length > 0) parts.push(`${detail.probe.consecutiveFailures} failing round(s) in a row.`);
  }
  const downDeps = detail.dependencies.filter((d) => d.status === 'DOWN');
  if (downDeps.length > 0) parts.push(`Reported dependencies down: ${downDeps.map((d) => d.name).join(', ')}.`);
  parts.push(
    incident
      ? `Incident #${incident.id} (${incident.severity}, ${incident.state}) open since ${incident.startedAt}, ${incident.acknowledgedAt ? `acknowledged ${incident.acknowledgedAt}` : 'not acknowledged'}.`
      : 'No open incident.',
  );
  parts.push(
    detail.holds.length > 0 ? `Held by ${detail.holds.map((h) => `${h.kind.toLowerCase()} #${h.id} (${h.effect})`).join('; ')}.` : 'No deployment or maintenance window holds it.',
  );
  parts.push(`On call: ${onCall.note}.`);
  return parts.join(' ');
}

export async function explainCheck(ctx: Ctx, ref: string): Promise<Explanation> {
  const check = await readableCheck(ctx, ref);
  const [detail, incident, onCall] = await Promise.all([
    checkDetail(ctx, check, RECENT_SIGNALS),
    openIncidentOf(ctx, check.checkId),
    onCallForProject(ctx, check.projectId ?? null),
  ]);
  const c = detail.check;
  const since = statusSince({
    status: c.status,
    mode: c.checkMode,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    signals: detail.signals,
    runs: detail.recentRuns,
    incidentStartedAt: incident?.startedAt ?? null,
  });
  const timed = c.checkMode === 'INBOUND' && c.nextDueAt !== undefined && c.status !== 'PAUSED';
  const due = timed && c.nextDueAt ? new Date(c.nextDueAt) : null;
  const deadlines: Deadlines = {
    dueAt: due ? due.toISOString() : null,
    lateAt: due ? lateAtOf(due, c.graceSeconds).toISOString() : null,
    downAt: due ? downAtOf(due, c.graceSeconds).toISOString() : null,
  };
  return {
    summary: summarize(detail, since, incident, deadlines, onCall),
    status: c.status,
    since: since.since,
    sinceExact: since.exact,
    sinceBasis: since.basis,
    check: { ...checkSummary(c), ...timingView(c), graceSeconds: c.graceSeconds },
    lateAt: deadlines.lateAt,
    downAt: deadlines.downAt,
    recentSignals: detail.signals,
    probe: detail.probe,
    recentRuns: detail.recentRuns,
    openIncident: incident,
    dependencies: detail.dependencies,
    holds: detail.holds,
    onCall,
  };
}

function detailText(e: Explanation): string {
  return [
    e.summary,
    '',
    ...e.recentSignals.map((s) => `signal ${s.type} (${s.source}) at ${s.receivedAt}${s.payloadPreview ? `: ${s.payloadPreview}` : ''}`),
    ...e.recentRuns.map((r) => `run ${r.region} at ${r.lastRunAt ?? '?'}: ${r.ok ? 'ok' : (r.failureReason ?? 'failed')}${r.statusCode ? ` ${r.statusCode}` : ''}`),
    ...(e.openIncident?.events ?? []).map((ev) => `incident ${ev.occurredAt} ${ev.type}: ${ev.message}`),
  ].join('\n');
}

const explainCheckTool = defineTool({
  name: 'explain_check',
  area: 'checks',
  title: 'Explain a check',
  description:
    'Answers "why is this check in its status?" in one call: the status and since when, the last pings (heartbeat ' +
    'jobs) or the latest probe run per region with failure reasons (HTTP checks), the open incident with its latest ' +
    'events, reported dependencies, deployment or maintenance windows holding it, and who is on call. A short ' +
    'summary comes first.',
  input: z.object({ check: CheckRef }),
  output: Explanation,
  effect: 'read',
  async run(ctx, { check }) {
    const data = await explainCheck(ctx, check);
    return { data, text: detailText(data) };
  },
});

export const explainTools: Tool[] = [explainCheckTool];
