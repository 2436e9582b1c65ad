import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { conflict } from '../http/httpError.js';
import type { CheckTooFrequent, DependenciesReported } from '../checks/events.js';
import { readJobRules } from '../checks/jobRulesStored.js';
import { exceedsOpenRuns, judgedBeforeWrite, judgeRun, openRuns, RUN_DUE_SHARD, runAllowanceMs, runAttribute, type RunState, type RunVerdict } from '../checks/runs.js';
import { statusChangeOwed } from '../checks/statusMessage.js';
import { causeOf, nextCheckStatus, PING_OBSERVATIONS, type PingKind, type PingState, type StatusChange } from '../checks/status.js';
import type { CheckItem } from '../store/entities/check.js';
import type { SignalItem } from '../store/entities/signal.js';
import { isConditionalFailure, retryOnConflict } from '../store/conditional.js';
import type { OutboxEntry } from '../store/outbox.js';
import { outboxFields, outboxWrite, type Owed, type OutboxWrite } from '../outbox/owe.js';
import { relayAfterWrite } from '../outbox/relay.js';
import { hintOf, type PingHint, type PingHints } from './hints.js';
import { DEDUP_WINDOW_MS, parseReportedDependencies, PING_RATE_LIMIT } from './limits.js';
import { checkFromItem, readCheck, readCheckWithRuns, restoreField, type PingDeps } from './pingStore.js';
import { checkKey, checkUpdateInput, compactPlaceholders, lowLevelUpdate, type PingExtras } from './rawItems.js';
import { putSignal, signalId, signalItem } from './record.js';
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
 * Each kind's dedup marker: a repeat of the same kind within 1 s is a duplicate; a
 * change of kind never is (a fail right after a success is a fail, and the reverse).
 */
const DEDUP_FIELD = { success: 'lastSuccessAt', fail: 'lastFailAt', start: 'startedAt', log: 'lastLogAt' } as const satisfies Record<PingKind, keyof CheckItem>;
/** Log lines are never duplicates of each other. */
const deduplicates = (kind: PingKind): boolean => kind !== 'log';

/**
 * The ping's update as it landed: the check before it, its status after, the outbox to relay on a
 * move, the raw item when it came back whole (open runs), and the run verdict when it was judged
 * before the write (a job with duration bounds or a minimum interval).
 */
type TakenPing = {
  previous: PingPrevious;
  statusAfter: CheckItem['status'];
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
 * The ping pipeline (docs/adr/0011-one-update-per-ping.md). (1) one conditional update of the check item,
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
const hintAfter = (taken: TakenPing, windowStart: number): PingHint => ({
  ...hintOf(taken.previous),
  status: taken.statusAfter,
  projectId: taken.projectId,
  windowStart,
});

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
    if (refusal) return refusal;
    if (judgedBeforeWrite(current.jobRules, kind)) {
      const state = runStateOf(current, raw);
      judged = { state, verdict: judgeRun(state, { kind, rid: input.rid }, now) };
    }
  }
  const taken = await conditionalPingUpdate(deps, input, windowStart, hint, judged);
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

/** What a read-first ping judged, and the state the judgement read (its update is conditioned on it). */
type Judged = { state: RunState; verdict: RunVerdict };

/** `value` is what the item holds, or absent: ISO strings are never below "0". */
function pin(guards: string[], names: Record<string, string>, values: Record<string, unknown>, placeholder: string, field: string, value: string | undefined): void {
  names[placeholder] = field;
  if (value === undefined) guards.push(`NOT ${placeholder} >= :never`);
  else {
    values[`:${placeholder.slice(1)}_was`] = value;
    guards.push(`${placeholder} = :${placeholder.slice(1)}_was`);
  }
}

/** The one UpdateItem of a ping; throws a conditional failure when any guess or guard fails. */
async function conditionalPingUpdate(deps: PingDeps, ping: PingInput, windowStart: number, hint: PingHint | undefined, judged: Judged | undefined): Promise<TakenPing> {
  const { token, kind, now, rid } = ping;
  const guess = {
    checkId: hint?.checkId ?? 0,
    status: hint?.status ?? ('OK' as const),
    checkMode: hint?.checkMode ?? ('INBOUND' as const),
    intervalSeconds: hint?.intervalSeconds ?? 0,
    graceSeconds: hint?.graceSeconds ?? 0,
    jobRules: hint?.jobRules,
  };
  // A run outside its duration bounds fails, whatever the ping said.
  const observation = PING_OBSERVATIONS[judged?.verdict.kind ?? kind];
  const { changes: plan, statusChange } = nextCheckStatus(guess, observation, now);
  const sameWindow = hint?.windowStart === windowStart;
  const id = signalId(now);
  // Every timed ping moves the check's own due-index entry to the instant it would turn LATE, in
  // this same update: the due time can never be lost between two writes, and a check that keeps
  // pinging is never read by the sweep (docs/adr/0001-check-due-index.md: why not a wake entry).
  // Kept free of parentheses and functions where the meaning allows: the embedded store parses
  // every condition, and `NOT a = b` / `NOT a > b` also hold when the attribute is missing.
  const guards: string[] = [];
  const names: Record<string, string> = {
    '#deletedAt': 'deletedAt',
    '#dedup': DEDUP_FIELD[kind],
    '#pingWindowStart': 'pingWindowStart',
  };
  const values: Record<string, unknown> = { ':cutoff': new Date(now.getTime() - DEDUP_WINDOW_MS).toISOString(), ':ws': windowStart };
  if (kind === 'start') {
    // A START writes no timing and assumes nothing; only existence.
    names['#pk'] = 'pk';
    guards.push('attribute_exists(#pk)');
  } else {
    // What the written timing assumed about the check; a missing item fails the first comparison.
    names['#checkMode'] = 'checkMode';
    values[':mode'] = guess.checkMode;
    guards.push('#checkMode = :mode');
    if (guess.checkMode === 'INBOUND') {
      names['#status'] = 'status';
      if (guess.status === 'PAUSED') {
        values[':paused'] = 'PAUSED';
        guards.push('#status = :paused');
      } else {
        // The exact status: whether this ping moves the check, and so owes a message, is then
        // known before the update, which records that message itself (no request of its own).
        names['#intervalSeconds'] = 'intervalSeconds';
        names['#graceSeconds'] = 'graceSeconds';
        values[':expected'] = guess.status;
        values[':interval'] = guess.intervalSeconds;
        values[':grace'] = guess.graceSeconds;
        guards.push('#status = :expected', '#intervalSeconds = :interval', '#graceSeconds = :grace');
        // The schedule (and the other job rules) the timing was computed with.
        names['#jobRules'] = 'jobRules';
        if (guess.jobRules === undefined) guards.push('NOT #jobRules >= :never');
        else {
          values[':jobRules'] = guess.jobRules;
          guards.push('#jobRules = :jobRules');
        }
      }
    }
  }
  const extras: PingExtras = kind === 'start' ? {} : { set: { [DEDUP_FIELD[kind]]: now.toISOString() } };
  if (rid !== undefined && kind !== 'log') {
    // The run's own attribute instead of the check-wide startedAt: concurrent runs each keep theirs.
    names['#run'] = runAttribute(rid);
    if (kind === 'start') {
      delete plan.set.startedAt;
      extras.setNamed = { '#run': now.toISOString() };
    } else {
      plan.remove = plan.remove.filter((key) => key !== 'startedAt');
      extras.removeNamed = ['#run'];
    }
  }
  const owedMessages: Owed[] = [];
  if (judged) {
    // The judgement read these: the write holds only if they are still what was read.
    if (rid !== undefined) pin(guards, names, values, '#run', runAttribute(rid), judged.state.runs[rid.toLowerCase()]);
    else pin(guards, names, values, '#startedAt', 'startedAt', judged.state.startedAt);
    pin(guards, names, values, '#lastSuccessAt', 'lastSuccessAt', judged.state.lastSuccessAt);
    const { verdict } = judged;
    if (verdict.episodeStarts && hint) {
      extras.set = { ...extras.set, tooFrequentSince: now.toISOString() };
      const rules = readJobRules(hint.jobRules);
      const sinceSeconds = judged.state.lastSuccessAt ? Math.floor((now.getTime() - Date.parse(judged.state.lastSuccessAt)) / 1000) : 0;
      const message: CheckTooFrequent = {
        type: 'check.too_frequent',
        checkId: hint.checkId,
        workspaceId: hint.workspaceId,
        projectId: hint.projectId ?? null,
        region: 'heartbeat',
        sinceSeconds,
        minIntervalSeconds: rules?.minIntervalSeconds ?? 0,
        at: now.toISOString(),
      };
      owedMessages.push({ queue: 'alerts', body: message });
    }
    if (verdict.episodeEnds) {
      names['#tooFrequentSince'] = 'tooFrequentSince';
      extras.removeNamed = [...(extras.removeNamed ?? []), '#tooFrequentSince'];
    }
  }
  let owed: OutboxWrite | undefined;
  if (statusChange && hint) {
    // The message names the project: the update holds it to the one remembered.
    const change = statusChangeOwed({ checkId: hint.checkId, workspaceId: hint.workspaceId, projectId: hint.projectId }, statusChange, causeOf(observation), now);
    owedMessages.unshift(...change.entries.map((entry) => ({ queue: entry.queue, body: JSON.parse(entry.body) as unknown })));
  }
  if (owedMessages.length > 0 && hint) {
    owed = outboxWrite(owedMessages, now);
    const fields = outboxFields(owed);
    extras.set = { ...extras.set, ...fields.set };
    extras.append = fields.append;
    names['#projectId'] = 'projectId';
    // Ids start at 1: `NOT >= 0` says "no project" without a function call.
    if (hint.projectId === undefined) {
      values[':noProject'] = 0;
      guards.push('NOT #projectId >= :noProject');
    } else {
      values[':project'] = hint.projectId;
      guards.push('#projectId = :project');
    }
  }
  // `deletedAt` is an ISO time, never below "0": this says attribute_not_exists without a function
  // call, which alone costs the embedded store's parser more than the other six comparisons.
  values[':never'] = '0';
  guards.push('NOT #deletedAt >= :never');
  if (deduplicates(kind)) guards.push('NOT #dedup > :cutoff');
  else {
    delete names['#dedup'];
    delete values[':cutoff'];
  }
  if (sameWindow) {
    names['#pingWindowCount'] = 'pingWindowCount';
    values[':limit'] = PING_RATE_LIMIT.limit;
    guards.push('#pingWindowStart = :ws', '#pingWindowCount < :limit');
  } else {
    guards.push('NOT #pingWindowStart = :ws');
  }
  // A timed ping writes the status, so the old values of what it writes (status, startedAt, ...)
  // plus what the condition pinned are all the ping needs back; anything else returns the item.
  // A run id or a judgement needs the whole item back (the run's start, the other open runs).
  const known = plan.set.status !== undefined && rid === undefined && !judged ? hint : undefined;
  const input = checkUpdateInput(
    deps.store.table,
    token,
    plan,
    { expression: guards.join(' AND '), names, values },
    sameWindow ? { add: { pingWindowCount: 1 } } : { set: { pingWindowStart: windowStart, pingWindowCount: 1 } },
    known ? 'UPDATED_OLD' : 'ALL_OLD',
    extras,
  );
  const result = await deps.store.hot.send(new UpdateItemCommand(lowLevelUpdate(compactPlaceholders(input))));
  const attributes = result.Attributes ? unmarshall(result.Attributes) : {};
  // Whatever an earlier move still owed goes out with this one's.
  const pending = owed ? [...((attributes.outbox as OutboxEntry[] | undefined) ?? []), ...owed.entries] : undefined;
  if (known) {
    const old = attributes as Partial<CheckItem>;
    if (old.status === undefined) throw new Error('ping update returned no previous status');
    const previous: PingPrevious = { ...old, checkId: known.checkId, workspaceId: known.workspaceId, checkMode: guess.checkMode, intervalSeconds: guess.intervalSeconds, graceSeconds: guess.graceSeconds, jobRules: guess.jobRules, status: old.status, complete: false };
    return { previous, statusAfter: plan.set.status ?? old.status, projectId: known.projectId, pending, raw: undefined, verdict: undefined, signalId: id };
  }
  const parsed = checkFromItem(attributes);
  if (!parsed) throw new Error('ping update returned no previous item');
  const previous: PingPrevious = { ...parsed, complete: true };
  return { previous, statusAfter: plan.set.status ?? previous.status, projectId: previous.projectId, pending, raw: attributes, verdict: judged?.verdict, signalId: id };
}

/** The whole check, for the rare ping that reports dependencies (the message names the project). */
async function completed(deps: PingDeps, token: string, previous: PingPrevious): Promise<PingPrevious> {
  if (previous.complete) return previous;
  const current = await readCheck(deps.store, token);
  return { ...previous, projectId: current?.projectId, complete: true };
}

async function record(deps: PingDeps, input: PingInput, taken: TakenPing): Promise<PingResult> {
  const { now, kind } = input;
  // A move's message is owed by the update itself: relayed now, or by the sweep if this fails.
  if (taken.pending) await relayAfterWrite(deps, checkKey(input.token), taken.pending);
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

  const after = { ...previous, ...outcome.changes.set };
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
