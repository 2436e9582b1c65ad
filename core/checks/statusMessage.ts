import { outboxWrite, type OutboxWrite } from '../outbox/owe.js';
import type { CheckItem } from '../store/entities/check.js';

/*
 * Building a `check.status_changed` without its schema (events.ts holds the schemas the incident
 * worker parses with, and re-exports these): the ping path owes this message and must not load zod.
 */

/** What moved a check: PING, FAIL_PING, SWEEP, PROBE, PAUSE, RESUME, DEPLOYMENT, or DELETE (from = to: the check is gone). */
export const STATUS_CHANGE_CAUSES = ['PING', 'FAIL_PING', 'SWEEP', 'PROBE', 'PAUSE', 'RESUME', 'DEPLOYMENT', 'DELETE'] as const;
export type StatusChangeCause = (typeof STATUS_CHANGE_CAUSES)[number];

/** A `check.status_changed` as built here; events.ts holds its schema to exactly this shape. */
export type StatusChangedMessage = {
  type: 'check.status_changed';
  checkId: number;
  workspaceId: number;
  projectId: number | null;
  from: CheckItem['status'];
  to: CheckItem['status'];
  at: string;
  cause: StatusChangeCause;
  /**
   * What the incident worker would read the check for, as the write that moved it saw it: the
   * incident's title and severities, and whether the alerts it owes are muted, then need no read
   * of the check (core/incidents/worker.ts). Absent from writers that never read the whole check
   * (the ping path); the worker reads it then. `muted` is absent from messages owed before it was
   * carried: their alerts read the check.
   */
  check?: StatusSnapshot | undefined;
};

export type StatusSnapshot = Pick<CheckItem, 'name' | 'lateSeverity' | 'downSeverity'> & { muted?: boolean | undefined };

type StatusSubject = Pick<CheckItem, 'checkId' | 'workspaceId'> & { projectId?: number | null | undefined } & Partial<
    Pick<CheckItem, 'name' | 'lateSeverity' | 'downSeverity' | 'muteNotifications'>
  >;

/** The one way to build a `check.status_changed`. */
export function statusChangedMessage(check: StatusSubject, from: CheckItem['status'], to: CheckItem['status'], cause: StatusChangeCause, at: Date): StatusChangedMessage {
  const { name, lateSeverity, downSeverity, muteNotifications } = check;
  return {
    type: 'check.status_changed',
    checkId: check.checkId,
    workspaceId: check.workspaceId,
    projectId: check.projectId ?? null,
    from,
    to,
    at: at.toISOString(),
    cause,
    // Only a move to LATE or DOWN is handled with the check's name and severities (and its mute, which a whole check always has).
    ...((to === 'LATE' || to === 'DOWN') && name !== undefined && lateSeverity !== undefined && downSeverity !== undefined
      ? { check: { name, lateSeverity, downSeverity, ...(muteNotifications !== undefined ? { muted: muteNotifications } : {}) } }
      : {}),
  };
}

/**
 * Tells the incident worker that a check moved (or, with cause DELETE, is gone): the message, as
 * owed by the write that makes the move (core/outbox), which records it and relays it right after.
 */
export function statusChangeOwed(check: StatusSubject, change: { from: CheckItem['status']; to: CheckItem['status'] }, cause: StatusChangeCause, now: Date): OutboxWrite {
  return outboxWrite([{ queue: 'incidents', body: statusChangedMessage(check, change.from, change.to, cause, now) }], now);
}
