import type { CheckTooFrequent } from '../checks/events.js';
import { readJobRules } from '../checks/jobRulesStored.js';
import { runAttribute, type RunState, type RunVerdict } from '../checks/runs.js';
import { statusChangeOwed } from '../checks/statusMessage.js';
import { causeOf, nextCheckStatus, PING_OBSERVATIONS, type PingKind } from '../checks/status.js';
import type { CheckItem } from '../store/entities/check.js';
import { outboxFields, outboxWrite, type Owed, type OutboxWrite } from '../outbox/owe.js';
import type { PingHint } from './hints.js';
import { DEDUP_WINDOW_MS, PING_RATE_LIMIT } from './limits.js';
import { checkUpdateInput, type PingExtras } from './rawItems.js';

/**
 * Each kind's dedup marker: a repeat of the same kind within 1 s is a duplicate; a
 * change of kind never is (a fail right after a success is a fail, and the reverse).
 */
export const DEDUP_FIELD = { success: 'lastSuccessAt', fail: 'lastFailAt', start: 'startedAt', log: 'lastLogAt' } as const satisfies Record<PingKind, keyof CheckItem>;
/** Log lines are never duplicates of each other. */
export const deduplicates = (kind: PingKind): boolean => kind !== 'log';

/** What of a ping its update depends on. */
export type PingUpdateInput = { token: string; kind: PingKind; now: Date; rid?: string | undefined };

/** The check's timing and mode as the update assumes them (the hint's guesses, or defaults for a blind start or log). */
export type PingGuess = {
  checkId: number;
  status: CheckItem['status'];
  checkMode: CheckItem['checkMode'];
  intervalSeconds: number;
  graceSeconds: number;
  jobRules: string | undefined;
};

export type PingUpdatePlan = {
  /** The UpdateItem in document form, with readable placeholders (the send compacts them). */
  request: ReturnType<typeof checkUpdateInput>;
  guess: PingGuess;
  /** The status a timed ping writes; undefined when the ping writes none (start, log, a paused check). */
  status: CheckItem['status'] | undefined;
  /** The messages the update records as owed (a status change, a too-frequent episode). */
  owed: OutboxWrite | undefined;
  /** Set when the update returns only the old values of what it writes: the hint supplies the rest. */
  known: PingHint | undefined;
  /** The next due instant the update writes, if it writes one (the next hint's). */
  nextDueAt: string | undefined;
};

/** What a read-first ping judged, and the state the judgement read (its update is conditioned on it). */
export type Judged = { state: RunState; verdict: RunVerdict };

/** `value` is what the item holds, or absent: ISO strings are never below "0". */
function pin(guards: string[], names: Record<string, string>, values: Record<string, unknown>, placeholder: string, field: string, value: string | undefined): void {
  names[placeholder] = field;
  if (value === undefined) guards.push(`NOT ${placeholder} >= :never`);
  else {
    values[`:${placeholder.slice(1)}_was`] = value;
    guards.push(`${placeholder} = :${placeholder.slice(1)}_was`);
  }
}

/**
 * The ping's one UpdateItem, planned: pure (the owed messages' ids aside), so every guess, guard
 * and write can be checked without a table; `sendPingUpdate` (core/signals/ingest.ts) performs it.
 * The update fails its condition when any guess or guard does not hold.
 */
export function planPingUpdate(table: string, ping: PingUpdateInput, windowStart: number, hint: PingHint | undefined, judged: Judged | undefined): PingUpdatePlan {
  const { token, kind, now, rid } = ping;
  const guess: PingGuess = {
    checkId: hint?.checkId ?? 0,
    status: hint?.status ?? ('OK' as const),
    checkMode: hint?.checkMode ?? ('INBOUND' as const),
    intervalSeconds: hint?.intervalSeconds ?? 0,
    graceSeconds: hint?.graceSeconds ?? 0,
    jobRules: hint?.jobRules,
  };
  // A run outside its duration bounds fails, whatever the ping said.
  const observation = PING_OBSERVATIONS[judged?.verdict.kind ?? kind];
  const { changes, statusChange } = nextCheckStatus(guess, observation, now);
  const sameWindow = hint?.windowStart === windowStart;
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
      delete changes.set.startedAt;
      extras.setNamed = { '#run': now.toISOString() };
    } else {
      changes.remove = changes.remove.filter((key) => key !== 'startedAt');
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
  const known = changes.set.status !== undefined && rid === undefined && !judged ? hint : undefined;
  const request = checkUpdateInput(
    table,
    token,
    changes,
    { expression: guards.join(' AND '), names, values },
    sameWindow ? { add: { pingWindowCount: 1 } } : { set: { pingWindowStart: windowStart, pingWindowCount: 1 } },
    known ? 'UPDATED_OLD' : 'ALL_OLD',
    extras,
  );
  return { request, guess, status: changes.set.status, owed, known, nextDueAt: changes.set.nextDueAt };
}
