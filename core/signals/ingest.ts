import { UpdateItemCommand, type UpdateItemCommandOutput } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { conflict } from '../http/httpError.js';
import type { DependenciesReported } from '../checks/events.js';
import { exceedsOpenRuns, judgedBeforeWrite, judgeRun, openRuns, RUN_DUE_SHARD, runAllowanceMs, runAttribute, type RunState, type RunVerdict } from '../checks/runs.js';
import { nextCheckStatus, PING_OBSERVATIONS, type PingKind, type PingState, type StatusChange } from '../checks/status.js';
import type { CheckItem } from '../store/entities/check.js';
import type { SignalItem } from '../store/entities/signal.js';
import { isConditionalFailure, retryOnConflict } from '../store/conditional.js';
import { unmarshallItem } from '../store/flatItems.js';
import type { OutboxEntry } from '../store/outbox.js';
import { handOffAfterWrite } from '../outbox/relay.js';
import { hintOf, sweptStatus, type PingHint, type PingHints } from './hints.js';
import { rememberCheckToken } from '../store/checkTokens.js';
import { DEDUP_WINDOW_MS, parseReportedDependencies, PING_RATE_LIMIT } from './limits.js';
import { checkFromItem, readCheck, readCheckWithRuns, restoreField, restoreIfAbsent, type PingDeps } from './pingStore.js';
import { DEDUP_FIELD, deduplicates, planPingUpdate, type Judged, type PingUpdatePlan } from './pingUpdate.js';
import { checkKey } from '../store/checkKeys.js';
import { compactPlaceholders, lowLevelUpdate } from './rawItems.js';
import { putSignal, signalId, signalItem } from './record.js';
import { signalWriterFor } from './signalWriter.js';
import { broadcast, checkEvent, signalEvent } from './streamEvents.js';

export type PingInput = {
  token: string;
  kind: PingKind;
  now: Date;
  method: string;
  sourceIp?: string | undefined;
  userAgent?: string | undefined;
  /** The raw body, already within the size limit; empty means none. */
  body?: string | undefined;
  /** `?rid=<uuid>`: pairs the start and end of one run (core/checks/runs.ts). */
  rid?: string | undefined;
  /** `/ping/:token/<0-255>`: stored with the signal (0 was sent as success, anything else as fail). */
  exitCode?: number | undefined;
};

/**
 * What the ping's update returned of the check before it: the whole item, or, in the steady state
 * (a timed ping, whose update sets the status), the old values of what it wrote plus the identity
 * and timing its condition pinned. `projectId` is only known from a whole item.
 */
export type PingPrevious = PingState & Pick<CheckItem, 'workspaceId'> & Partial<CheckItem> & { complete: boolean };

export type PingResult =
  | { outcome: 'recorded'; previous: PingPrevious; signal: SignalItem; statusChange: StatusChange | null }
  | { outcome: 'deduplicated' }
  | { outcome: 'unknown' }
  | { outcome: 'rate_limited'; retryAfterSeconds: number }
  /** A `/start?rid=` of a job that already holds MAX_OPEN_RUNS open runs. */
  | { outcome: 'too_many_runs' };

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{1,128}$/;
/** Anything else cannot be a check token: answered as unknown without a lookup. */
export const isTokenShaped = (token: string): boolean => TOKEN_SHAPE.test(token);
const WINDOW_MS = PING_RATE_LIMIT.windowSeconds * 1000;
const MAX_ATTEMPTS = 3;

/**
 * The ping's update as it landed: the check before it, its status after, the outbox to relay on a
 * move, the raw item when it came back whole (open runs), and the run verdict when it was judged
 * before the write (a job with duration bounds or a minimum interval).
 */
type TakenPing = {
  previous: PingPrevious;
  statusAfter: CheckItem['status'];
  nextDueAt: string | undefined;
  projectId: number | undefined;
  pending: OutboxEntry[] | undefined;
  raw: Record<string, unknown> | undefined;
  verdict: RunVerdict | undefined;
  /** The signal's id. */
  signalId: string;
};

const runStateOf = (check: Partial<CheckItem>, raw: Record<string, unknown>): RunState => ({
  graceSeconds: check.graceSeconds,
  jobRules: check.jobRules,
  startedAt: check.startedAt,
  lastSuccessAt: check.lastSuccessAt,
  tooFrequentSince: check.tooFrequentSince,
  runs: openRuns(raw),
});

/**
 * The ping pipeline (docs/guide/checks-and-pings.md, docs/adr/0011-one-update-per-ping.md). (1) one conditional update of the check item,
 * addressed by its token, that also enforces existence, the 1-second dedup and the per-token rate
 * limit and returns the previous item; a status change is recorded in that same update as the
 * message it owes (core/outbox) and relayed right after; (2) the signal put; (3) reported
 * dependencies; (4) the stream broadcast. The update goes first so a duplicate or refused ping
 * stores nothing; the caller answers 200 only once both writes landed. Steady state: exactly two
 * requests to the table and no queue message.
 *
 * The one ingest of every ping, whichever app serves it: the API app and the local server pass
 * their Deps, the ping Lambda its PingDeps (the same table requests through pingStore.ts).
 */
export async function ingestPing(deps: PingDeps, hints: PingHints, input: PingInput): Promise<PingResult> {
  const { token, now } = input;
  if (!isTokenShaped(token)) return { outcome: 'unknown' };
  const windowStart = Math.floor(now.getTime() / WINDOW_MS) * WINDOW_MS;
  // A failed condition means the hint was stale: every later attempt reads first.
  const taken = await retryOnConflict((attempt) => takePing(deps, hints, input, windowStart, attempt > 1), {
    attempts: MAX_ATTEMPTS,
    onExhausted: () => conflict('The check changed while the ping was recorded; send it again'),
  });
  return 'outcome' in taken ? taken : record(deps, input, taken);
}

/** The check as remembered for the next ping: its status after this one, and its project. */
const hintAfter = (taken: TakenPing, windowStart: number): PingHint =>
  Object.assign(hintOf(taken.previous), { status: taken.statusAfter, nextDueAt: taken.nextDueAt, projectId: taken.projectId, windowStart });

/**
 * One attempt: the conditional update on the remembered hint's guesses, or on what a consistent
 * read finds (which may refuse the ping instead). Returns the check as it was before the ping.
 */
async function takePing(deps: PingDeps, hints: PingHints, input: PingInput, windowStart: number, retry: boolean): Promise<TakenPing | PingResult> {
  const { token, kind, now } = input;
  let hint = hints.get(token);
  let judged: Judged | undefined;
  // `start` and `log` write no timing, so without a hint they can still try blind; the others need
  // the interval, and a job with bounds is judged on what it holds (its run starts, last success).
  if (retry || (hint === undefined && kind !== 'start' && kind !== 'log') || judgedBeforeWrite(hint?.jobRules, kind)) {
    const { current, raw } = await readCheckWithRuns(deps.store, token);
    const refusal = judge(current, kind, now, windowStart);
    if (!current || refusal?.outcome === 'unknown') {
      hints.delete(token);
      return { outcome: 'unknown' };
    }
    hint = hintOf(current);
    hints.set(token, hint);
    rememberCheckToken(deps.store, current.checkId, current.token);
    if (refusal) return refusal;
    if (judgedBeforeWrite(current.jobRules, kind)) {
      const state = runStateOf(current, raw);
      judged = { state, verdict: judgeRun(state, { kind, rid: input.rid }, now) };
    }
  } else if (hint !== undefined) {
    // Remembered, not read: what the sweep has done since is guessed (a recovery's first ping).
    const status = sweptStatus(hint, now);
    if (status !== hint.status) hint = Object.assign({}, hint, { status });
  }
  const taken = await sendPingUpdate(deps, planPingUpdate(deps.store.table, input, windowStart, hint, judged), judged, input.now);
  hints.set(token, hintAfter(taken, windowStart));
  return taken;
}

/** Why a ping is refused, read from the current item (the fallback after a failed condition). */
function judge(current: CheckItem | undefined, kind: PingKind, now: Date, windowStart: number): PingResult | undefined {
  if (!current || current.deletedAt !== undefined) return { outcome: 'unknown' };
  const last = current[DEDUP_FIELD[kind]];
  if (deduplicates(kind) && last !== undefined && now.getTime() - Date.parse(last) < DEDUP_WINDOW_MS) return { outcome: 'deduplicated' };
  if (current.pingWindowStart === windowStart && (current.pingWindowCount ?? 0) >= PING_RATE_LIMIT.limit) {
    return { outcome: 'rate_limited', retryAfterSeconds: Math.max(1, Math.ceil((windowStart + WINDOW_MS - now.getTime()) / 1000)) };
  }
  return undefined;
}

/**
 * Performs a planned ping update and reads what it returned: the check before the ping, whole, or
 * in the steady state only the old values of what it wrote, completed from the plan's hint.
 */
async function sendPingUpdate(deps: PingDeps, plan: PingUpdatePlan, judged: Judged | undefined, now: Date): Promise<TakenPing> {
  const { guess, known, owed } = plan;
  const id = signalId(now);
  // Signals of other pings waiting to be put leave with this one's (core/signals/signalWriter.ts).
  const landed = signalWriterFor(deps.store).updateInFlight();
  let result: UpdateItemCommandOutput;
  try {
    result = await deps.store.hot.send(new UpdateItemCommand(lowLevelUpdate(compactPlaceholders(plan.request))));
  } finally {
    landed();
  }
  const attributes = result.Attributes ? unmarshallItem(result.Attributes) : {};
  // Whatever an earlier move still owed goes out with this one's.
  const pending = owed ? [...((attributes.outbox as OutboxEntry[] | undefined) ?? []), ...owed.entries] : undefined;
  // Known from the plan, the update returned only the old values of what it wrote; otherwise the whole item.
  const previous = known ? previousOfKnown(attributes, known, guess) : previousOfWhole(attributes);
  return {
    previous,
    statusAfter: plan.status ?? previous.status,
    nextDueAt: plan.nextDueAt ?? previous.nextDueAt,
    projectId: known ? known.projectId : previous.projectId,
    pending,
    raw: known ? undefined : attributes,
    verdict: known ? undefined : judged?.verdict,
    signalId: id,
  };
}

// Object.assign rather than spread, in both: see checkUpdateInput (core/signals/rawItems.ts).
function previousOfKnown(attributes: Record<string, unknown>, known: NonNullable<PingUpdatePlan['known']>, guess: PingUpdatePlan['guess']): PingPrevious {
  const old = attributes as Partial<CheckItem>;
  if (old.status === undefined) throw new Error('ping update returned no previous status');
  return Object.assign({}, old, {
    checkId: known.checkId,
    workspaceId: known.workspaceId,
    checkMode: guess.checkMode,
    intervalSeconds: guess.intervalSeconds,
    graceSeconds: guess.graceSeconds,
    jobRules: guess.jobRules,
    status: old.status,
    complete: false,
  });
}

function previousOfWhole(attributes: Record<string, unknown>): PingPrevious {
  const parsed = checkFromItem(attributes);
  if (!parsed) throw new Error('ping update returned no previous item');
  return Object.assign({}, parsed, { complete: true });
}

/** The whole check, for the rare ping that reports dependencies (the message names the project). */
async function completed(deps: PingDeps, token: string, previous: PingPrevious): Promise<PingPrevious> {
  if (previous.complete) return previous;
  const current = await readCheck(deps.store, token);
  return { ...previous, projectId: current?.projectId, complete: true };
}

async function record(deps: PingDeps, input: PingInput, taken: TakenPing): Promise<PingResult> {
  const { now, kind } = input;
  // A move's message is owed by the update itself: handed to this process's incidents consumer or
  // relayed now (core/outbox/relay.ts handOffAfterWrite), or by the sweep if this fails.
  if (taken.pending) await handOffAfterWrite(deps, checkKey(input.token), taken.pending);
  try {
    if (kind === 'start' && input.rid !== undefined && taken.raw && exceedsOpenRuns(taken.raw, input.rid)) {
      await withdrawRun(deps, input, input.rid);
      return { outcome: 'too_many_runs' };
    }
    return await recordSignal(deps, input, taken);
  } catch (err) {
    // Whatever failed after the update, the client's retry must not be swallowed as a duplicate.
    await releaseDedup(deps, input.token, taken.previous, kind, now).catch((cause: unknown) => console.error('could not release ping dedup', cause));
    // A run whose START (and so its missed-run entry) may not have landed is taken back: the
    // client sends the start again, and no open run is left that the sweep would never look at.
    if (kind === 'start' && input.rid !== undefined) await withdrawRun(deps, input, input.rid).catch((cause: unknown) => console.error('could not withdraw the run', cause));
    else await giveRunStartBack(deps, input, taken).catch((cause: unknown) => console.error('could not give the run start back', cause));
    throw err;
  }
}

/**
 * A start past the job's cap on open runs (core/checks/runs.ts MAX_OPEN_RUNS), seen in the item
 * its update returned whole (no read of its own): the run it just opened is taken back, on the
 * condition that it still holds this start, and the ping is refused.
 */
async function withdrawRun(deps: PingDeps, input: PingInput, rid: string): Promise<void> {
  try {
    await deps.store.hot.send(
      new UpdateItemCommand({
        TableName: deps.store.table,
        Key: marshall(checkKey(input.token)),
        UpdateExpression: 'REMOVE #run',
        ConditionExpression: '#run = :start',
        ExpressionAttributeNames: { '#run': runAttribute(rid) },
        ExpressionAttributeValues: marshall({ ':start': input.now.toISOString() }),
      }),
    );
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

/**
 * An end (success or fail) whose signal was not stored had already taken its run's start off the
 * check (its `run_<rid>`, or `startedAt`): the start goes back, so the client's retry of the same
 * end still measures the run (runitor and curl --retry send exactly that request again).
 */
async function giveRunStartBack(deps: PingDeps, input: PingInput, taken: TakenPing): Promise<void> {
  if (input.kind !== 'success' && input.kind !== 'fail') return;
  const field = input.rid !== undefined ? runAttribute(input.rid) : 'startedAt';
  const start = input.rid !== undefined ? taken.raw?.[field] : taken.previous.startedAt;
  if (typeof start === 'string') await restoreIfAbsent(deps.store, input.token, field, start);
}

/**
 * Where a run's START goes in the missed-run index: at its start plus its allowance, read from the
 * check the start's update returned whole. The sweep re-judges with the job as it is then.
 */
const runDueOf = (check: PingPrevious, now: Date): { runDueAt: string; runDueShard: string } => ({
  runDueAt: new Date(now.getTime() + runAllowanceMs(check)).toISOString(),
  runDueShard: RUN_DUE_SHARD,
});

/** Everything after the update: the signal, reported dependencies, the stream events. */
async function recordSignal(deps: PingDeps, input: PingInput, taken: TakenPing): Promise<PingResult> {
  const { now, kind, rid } = input;
  const returned = taken.previous;
  // A run id's start came back with the whole item; a judged ping's verdict was made before the write.
  const verdict = taken.verdict ?? (taken.raw && rid !== undefined ? judgeRun(runStateOf(returned, taken.raw), { kind, rid }, now) : undefined);
  const observation = PING_OBSERVATIONS[taken.verdict?.kind ?? kind];
  // The guards made the written changes exactly these; the previous item adds status and duration.
  const outcome = nextCheckStatus(returned, observation, now);
  const body = input.body ? parseBody(input.body) : undefined;
  const dependencies = body?.json !== undefined ? reportedDependencies(body.json) : undefined;
  const previous = dependencies ? await completed(deps, input.token, returned) : returned;
  const payload = body ? { text: body.text, isJson: body.json !== undefined } : undefined;
  const details: Record<string, unknown> = {};
  if (input.exitCode !== undefined) details.exitCode = input.exitCode;
  if (rid !== undefined) details.rid = rid.toLowerCase();
  if (verdict?.reason !== undefined) details.reason = verdict.reason;
  const signal = signalItem(
    previous,
    {
      type: verdict?.tooFrequent && outcome.signal.type === 'SUCCESS' ? 'TOO_FREQUENT' : outcome.signal.type,
      source: 'PING',
      sourceIp: input.sourceIp,
      userAgent: input.userAgent,
      method: input.method,
      payload,
      // With a run id only that run's start counts.
      durationMs: verdict ? verdict.durationMs : outcome.signal.durationMs,
      details: Object.keys(details).length > 0 ? details : undefined,
      signalId: taken.signalId,
      runDue: kind === 'start' && rid !== undefined ? runDueOf(returned, now) : undefined,
    },
    now,
  );
  await putSignal(deps, signal);
  // Reported dependencies ride on the payload, so a retried ping reports them again.
  if (dependencies) {
    const message: DependenciesReported = {
      type: 'dependencies.reported',
      checkId: previous.checkId,
      workspaceId: previous.workspaceId,
      projectId: previous.projectId ?? null,
      dependencies,
      at: now.toISOString(),
    };
    await deps.queue.publish('incidents', [message]);
  }

  const after = Object.assign({}, previous, outcome.changes.set);
  await broadcast(deps, kind === 'start' || kind === 'log' ? [signalEvent(signal)] : [signalEvent(signal), checkEvent(after)]);
  return { outcome: 'recorded', previous, signal, statusChange: outcome.statusChange };
}

/**
 * Something failed after the check took the ping: give the dedup marker back so the client's
 * retry is not swallowed as a duplicate (nothing that answered 200 is lost; this did not).
 */
async function releaseDedup(deps: PingDeps, token: string, previous: PingPrevious, kind: PingKind, now: Date): Promise<void> {
  if (!deduplicates(kind)) return;
  const field = DEDUP_FIELD[kind];
  await restoreField(deps.store, token, field, previous[field], now.toISOString());
}

/** A body that is not JSON is still a ping: it is kept as text. */
function parseBody(text: string): { text: string; json?: unknown } {
  try {
    return { text, json: JSON.parse(text) as unknown };
  } catch {
    return { text };
  }
}

function reportedDependencies(body: unknown): DependenciesReported['dependencies'] | undefined {
  if (typeof body !== 'object' || body === null || !('dependencies' in body)) return undefined;
  return parseReportedDependencies((body as { dependencies: unknown }).dependencies);
}
