import { z } from '@hono/zod-openapi';
import { listDashboardChecks } from '../../checks/dashboard.js';
import { timingText, timingView } from '../../checks/jobRules.js';
import { CheckV1Create, JobCreate } from '../../checks/schema.js';
import { createHeartbeatJob, createV1Check, pauseV1, resumeV1, type V1Kind } from '../../checks/v1.js';
import { pingUrlOf, seesPingToken } from '../../checks/present.js';
import { paginate, type Page } from '../../http/pagination.js';
import { CHECK_STATUSES } from '../../store/entities/check.js';
import type { CheckItem } from '../../store/entities/check.js';
import { checkDetail, readableCheck } from '../checkDetail.js';
import { CheckRef, CheckSummary, CheckTiming, DependencySummary, HoldSummary, Id, PageArgs, PageInfo, ProbeSummary, SignalSummary } from '../schema.js';
import { defineTool, type Tool } from '../tool.js';
import { checkLine, checkSummary, listText, pageOf } from '../present.js';

const MODE_OF_TYPE = { HEARTBEAT: 'INBOUND', HTTP: 'OUTBOUND' } as const;
const STATUS_CHUNK = 100;

const kindOf = (check: CheckItem): V1Kind => (check.checkMode === 'OUTBOUND' ? 'check' : 'job');

const listChecks = defineTool({
  name: 'list_checks',
  area: 'checks',
  title: 'List checks',
  description:
    'Checks of the workspace (heartbeat jobs and HTTP checks), in id order, as summaries. Filter by project, status ' +
    '(NEW, OK, LATE, DOWN, PAUSED, RESUMED), type (HEARTBEAT, HTTP) and q, a part of the name (any case), as the ' +
    'dashboard\'s search does: "find the backup job". Paginated: the answer says how many remain.',
  input: z.object({
    projectId: Id.optional(),
    status: z.enum(CHECK_STATUSES).optional(),
    type: z.enum(['HEARTBEAT', 'HTTP']).optional(),
    q: z.string().min(1).max(100).optional().describe('case-insensitive part of the name'),
    ...PageArgs,
  }),
  output: z.object({ items: z.array(CheckSummary), ...PageInfo }),
  effect: 'read',
  async run(ctx, { projectId, status, type, q, page, limit }) {
    // A type is a mode (HEARTBEAT jobs are INBOUND, HTTP checks OUTBOUND), which the lists page by.
    const checkMode = type === undefined ? undefined : MODE_OF_TYPE[type];
    const needle = q?.toLowerCase();
    const matches = (check: CheckItem) => (status === undefined || check.status === status) && (needle === undefined || check.name.toLowerCase().includes(needle));
    let found: Page<CheckItem>;
    if (status === undefined && needle === undefined) {
      // Only the page is read (core/store/checkLists.ts).
      found = await listDashboardChecks(ctx, { projectId, checkMode, page, limit });
    } else {
      // Neither status (a ping changes it) nor a part of the name is indexed: the scope is read 100
      // at a time and filtered, as the dashboard's filtered list is (core/checks/listing.ts).
      const matching: CheckItem[] = [];
      for (let chunk = 1; ; chunk++) {
        const read = await listDashboardChecks(ctx, { projectId, checkMode, page: chunk, limit: STATUS_CHUNK });
        matching.push(...read.items.filter(matches));
        if (chunk * STATUS_CHUNK >= read.total || read.items.length === 0) break;
      }
      found = paginate(matching, page, limit);
    }
    const data = pageOf({ ...found, items: found.items.map(checkSummary) });
    return { data, text: listText('checks', data, checkLine) };
  },
});

const CheckFull = CheckSummary.extend({
  checkMode: z.enum(['INBOUND', 'OUTBOUND']),
  ...CheckTiming,
  downSeverity: z.string(),
  lateSeverity: z.string(),
  muteNotifications: z.boolean(),
  pingUrl: z.string().nullable().describe('heartbeat jobs: where the job pings'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const getCheck = defineTool({
  name: 'get_check',
  area: 'checks',
  title: 'Get a check',
  description:
    'One check with its recent signals (heartbeat jobs) or the latest probe run per region (HTTP checks), its ' +
    'dependencies, and the deployment or maintenance windows holding it now. For "why is it in this status" use explain_check.',
  input: z.object({ check: CheckRef }),
  output: z.object({
    check: CheckFull,
    recentSignals: z.array(SignalSummary),
    probe: ProbeSummary.nullable(),
    dependencies: z.array(DependencySummary),
    holds: z.array(HoldSummary),
  }),
  effect: 'read',
  async run(ctx, { check: ref }) {
    const detail = await checkDetail(ctx, await readableCheck(ctx, ref), 10);
    const c = detail.check;
    const timing = timingView(c);
    const check = {
      ...checkSummary(c),
      checkMode: c.checkMode,
      ...timing,
      graceSeconds: c.graceSeconds,
      downSeverity: c.downSeverity,
      lateSeverity: c.lateSeverity,
      muteNotifications: c.muteNotifications,
      pingUrl: c.checkMode === 'INBOUND' && seesPingToken(ctx.actor) ? pingUrlOf(ctx.deps.config, c.token) : null,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
    };
    const lines = [
      checkLine(check),
      `${timingText(timing)}, grace ${c.graceSeconds}s${c.muteNotifications ? ', notifications muted' : ''}`,
      ...detail.signals.slice(0, 5).map((s) => `signal ${s.type} (${s.source}) at ${s.receivedAt}`),
      ...(detail.probe?.regions ?? []).map((r) => `${r.region}: ${r.lastRunAt ? `${r.ok ? 'ok' : `failed ${r.failureReason ?? ''}`} at ${r.lastRunAt}` : 'no run yet'}`),
      ...detail.dependencies.map((d) => `dependency ${d.name}: ${d.status}`),
      ...detail.holds.map((h) => `${h.kind.toLowerCase()} #${h.id} ${h.name ?? ''}: ${h.effect}`),
    ];
    return {
      data: { check, recentSignals: detail.signals, probe: detail.probe, dependencies: detail.dependencies, holds: detail.holds },
      text: lines.join('\n'),
    };
  },
});

const Created = z.object({
  check: CheckSummary,
  pingUrl: z.string().nullable().describe('heartbeat jobs: the URL the job must ping'),
});

const createJob = defineTool({
  name: 'create_job',
  area: 'checks',
  title: 'Create a heartbeat job',
  description:
    'Creates a heartbeat job (the body of POST /v1/jobs): the job pings its pingUrl every intervalSeconds; graceSeconds ' +
    'of lateness are tolerated, so it is LATE once it is graceSeconds overdue and DOWN once it is twice that. Returns the ping URL.',
  input: JobCreate,
  output: Created,
  effect: { destructive: false, idempotent: false },
  async run(ctx, body) {
    const job = await createHeartbeatJob(ctx, body);
    const pingUrl = pingUrlOf(ctx.deps.config, job.token);
    return { data: { check: checkSummary(job), pingUrl }, text: `Created ${checkLine(checkSummary(job))}\nping URL: ${pingUrl}` };
  },
});

const createHttpCheck = defineTool({
  name: 'create_http_check',
  area: 'checks',
  title: 'Create an HTTP check',
  description: 'Creates an outbound HTTP check (the body of POST /v1/checks, HTTP only): Vigil probes config.url every intervalSeconds from the configured regions.',
  input: CheckV1Create.omit({ checkType: true }),
  output: Created,
  effect: { destructive: false, idempotent: false },
  async run(ctx, body) {
    const check = await createV1Check(ctx, { ...body, checkType: 'HTTP' });
    return { data: { check: checkSummary(check), pingUrl: null }, text: `Created ${checkLine(checkSummary(check))}` };
  },
});

const pauseCheck = defineTool({
  name: 'pause_check',
  area: 'checks',
  title: 'Pause a check',
  description: 'Pauses a check: no LATE/DOWN, no incidents and no alerts until it is resumed. Pausing a paused check changes nothing.',
  input: z.object({ check: CheckRef }),
  output: z.object({ check: CheckSummary }),
  effect: { destructive: true, idempotent: true },
  async run(ctx, { check: ref }) {
    const paused = await pauseV1(ctx, kindOf(await readableCheck(ctx, ref)), ref);
    return { data: { check: checkSummary(paused) }, text: `Paused ${checkLine(checkSummary(paused))}` };
  },
});

const resumeCheck = defineTool({
  name: 'resume_check',
  area: 'checks',
  title: 'Resume a check',
  description: 'Resumes a paused check (status RESUMED; timing restarts from now). Resuming a check that is not paused changes nothing.',
  input: z.object({ check: CheckRef }),
  output: z.object({ check: CheckSummary }),
  effect: { destructive: false, idempotent: true },
  async run(ctx, { check: ref }) {
    const resumed = await resumeV1(ctx, kindOf(await readableCheck(ctx, ref)), ref);
    return { data: { check: checkSummary(resumed) }, text: `Resumed ${checkLine(checkSummary(resumed))}` };
  },
});

export const checkTools: Tool[] = [listChecks, getCheck, createJob, createHttpCheck, pauseCheck, resumeCheck];
