/**
 * The escalation-due index as the table stores it (`gsi5`, the incident entity's
 * `byDue`): an incident is in it only while something of its escalation is pending (a
 * step, an acknowledgement's timeout, a maintenance hold), keyed by shard and due instant. The
 * incident writes (core/incidents/repository.ts) put a new incident in and take a resolved one
 * out; the escalation sweep (core/escalation/sweep.ts) reads only what is due.
 */

/** One shard serves a great many pending incidents; more shards would spread the writers. */
export const ESCALATION_SHARDS: readonly string[] = ['escalation#0'];
export const escalationShardFor = (_incidentId: number): string => ESCALATION_SHARDS[0] ?? 'escalation#0';

/** The index's sort key: the due instant in epoch milliseconds, zero-padded so text order is time order. */
export const dueKey = (at: Date): string => String(at.getTime()).padStart(15, '0');

/** The fields that put an incident in the index, due at `at`. */
export const dueFields = (incidentId: number, at: Date) => ({ dueShard: escalationShardFor(incidentId), dueAt: dueKey(at) });

export const ESCALATION_DUE_ATTRIBUTES = ['dueShard', 'dueAt'] as const;

/** On-call schedules share the index under their own shard: when the notice sweep next looks at one. */
export const NOTICE_SHARD = 'oncall-notice#0';
export const noticeDueFields = (at: Date) => ({ dueShard: NOTICE_SHARD, dueAt: dueKey(at) });
