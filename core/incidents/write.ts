import type { IncidentItem } from '../store/entities/incident.js';
import { dueFields, ESCALATION_DUE_ATTRIBUTES } from '../store/escalationDue.js';
import { sameCursor, type EscalationState, type IncidentState } from './transition.js';

/** The state machine's view of a stored incident (absent attributes are null). */
export const toState = (item: IncidentItem): IncidentState => ({
  state: item.state,
  severity: item.severity,
  startedAt: item.startedAt,
  resolvedAt: item.resolvedAt ?? null,
  recoveredAt: item.recoveredAt ?? null,
  acknowledgedBy: item.acknowledgedBy ?? null,
  acknowledgedByKeyId: item.acknowledgedByKeyId ?? null,
  acknowledgedAt: item.acknowledgedAt ?? null,
  escalation: escalationOf(item),
});

function escalationOf(item: IncidentItem): EscalationState | null {
  if (item.escalationEpoch === undefined) return null;
  return {
    cursor: {
      epoch: item.escalationEpoch,
      cycle: item.escalationCycle ?? 0,
      step: item.escalationStep ?? 0,
      anchor: item.escalationAnchor ?? item.startedAt,
      held: item.escalationHeld ?? false,
      afterAck: item.escalationAfterAck ?? false,
    },
    // The index's sort key is the due instant in epoch milliseconds (core/store/escalationDue.ts).
    dueAt: item.dueAt !== undefined ? new Date(Number(item.dueAt)).toISOString() : null,
  };
}

type Settable = Pick<
  IncidentItem,
  | 'title'
  | 'state'
  | 'severity'
  | 'revision'
  | 'updatedAt'
  | 'resolvedAt'
  | 'recoveredAt'
  | 'acknowledgedAt'
  | 'acknowledgedBy'
  | 'acknowledgedByKeyId'
  | 'escalationEpoch'
  | 'escalationCycle'
  | 'escalationStep'
  | 'escalationAnchor'
  | 'escalationHeld'
  | 'escalationAfterAck'
  | 'dueShard'
  | 'dueAt'
>;
type Removable = 'acknowledgedAt' | 'acknowledgedBy' | 'acknowledgedByKeyId' | (typeof ESCALATION_DUE_ATTRIBUTES)[number];

export type IncidentWrite = { set: Partial<Settable>; remove: Removable[]; item: IncidentItem };

const ACKNOWLEDGEMENT = ['acknowledgedAt', 'acknowledgedBy', 'acknowledgedByKeyId'] as const;

/**
 * The write of one transition, pure: what it sets and removes on the stored item, and the item as
 * it reads after. Only what changed is written. `updatedAt` moves when what the API shows changes
 * (state, severity, acknowledgement, title), not when only the escalation cursor moves; the
 * revision moves on every write, since every write is conditional on the revision read.
 */
export function incidentWrite(current: IncidentItem, next: IncidentState, title: string | undefined, now: Date): IncidentWrite {
  const before = toState(current);
  const shown =
    title !== undefined ||
    before.state !== next.state ||
    before.severity !== next.severity ||
    before.resolvedAt !== next.resolvedAt ||
    before.recoveredAt !== next.recoveredAt ||
    before.acknowledgedAt !== next.acknowledgedAt;
  const set: Partial<Settable> = {
    revision: current.revision + 1,
    ...(shown
      ? {
          ...(title !== undefined ? { title } : {}),
          state: next.state,
          severity: next.severity,
          updatedAt: now.toISOString(),
          ...(next.resolvedAt !== null ? { resolvedAt: next.resolvedAt } : {}),
          ...(next.recoveredAt !== null ? { recoveredAt: next.recoveredAt } : {}),
          ...(next.acknowledgedAt !== null ? { acknowledgedAt: next.acknowledgedAt } : {}),
          ...(next.acknowledgedBy !== null ? { acknowledgedBy: next.acknowledgedBy } : {}),
          ...(next.acknowledgedByKeyId !== null ? { acknowledgedByKeyId: next.acknowledgedByKeyId } : {}),
        }
      : {}),
  };
  const remove: Removable[] = before.acknowledgedAt !== null && next.acknowledgedAt === null ? [...ACKNOWLEDGEMENT] : [];

  const escalation = next.escalation;
  if (escalation && (!before.escalation || !sameCursor(before.escalation.cursor, escalation.cursor))) {
    const { cursor } = escalation;
    Object.assign(set, {
      escalationEpoch: cursor.epoch,
      escalationCycle: cursor.cycle,
      escalationStep: cursor.step,
      escalationAnchor: cursor.anchor,
      escalationHeld: cursor.held,
      escalationAfterAck: cursor.afterAck,
    } satisfies Partial<Settable>);
  }
  const dueAt = escalation?.dueAt ?? null;
  if (dueAt !== null && dueAt !== before.escalation?.dueAt) Object.assign(set, dueFields(current.incidentId, new Date(dueAt)));
  if (dueAt === null && current.dueShard !== undefined) remove.push(...ESCALATION_DUE_ATTRIBUTES);

  const item: IncidentItem = { ...current, ...set };
  for (const name of remove) item[name] = undefined;
  return { set, remove, item };
}
