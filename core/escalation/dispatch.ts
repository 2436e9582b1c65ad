import { alertActions } from '../alerting/ackLinks.js';
import { composeAlert, deliveryKey, notificationFor, type AlertContext, type AlertNotification } from '../alerting/alertContent.js';
import { deliverOnce, type Delivery } from '../alerting/delivery.js';
import { alertHandlers, dispatchIncidentAlert, unfinishedOf, type AlertHandlerOptions, type DispatchOutcome } from '../alerting/dispatch.js';
import { timelineRecordClaim } from '../alerting/recordClaim.js';
import { alertCheckOf } from '../checks/alertCheck.js';
import type { Deps } from '../deps.js';
import type { IncidentAlertMessage } from '../incidents/events.js';
import { appendIncidentEvent, listIncidentEvents, readIncident } from '../incidents/repository.js';
import { consumeMessages, handler, type BatchResult } from '../outbox/consumer.js';
import type { OutboxClear } from '../store/outbox.js';
import type { QueueMessage } from '../ports/index.js';
import type { AlertChannelItem } from '../store/entities/alertChannel.js';
import { newBatchReads } from '../store/batchReads.js';
import type { IncidentItem } from '../store/entities/incident.js';
import { windowEffects } from '../windows/holds.js';
import { markHeld } from './hold.js';
import { planOf, routeIncident } from './plan.js';
import { recipientsByKey, recipientsOf, targetLabel, type Recipient, type Unreached } from './recipients.js';
import { EscalationStepMessage } from './stepMessage.js';
import { planOpenedEscalation } from './sweep.js';

export { EscalationStepMessage } from './stepMessage.js';

/**
 * The `alerts` queue consumer with routing (docs/guide/oncall-and-escalation.md). Incident
 * changes of a project routed to every channel go out as before (core/alerting/dispatch.ts); with
 * a policy or legacy rules, the opening tells step 0 (when its delay is 0) and later changes
 * (acknowledged, resolved, severity) tell every recipient already told, once each. Escalation
 * steps the sweep fires arrive as `incident.escalation_step` messages.
 */

/**
 * The key of one (incident, epoch, cycle, step, recipient) delivery. The first step of the first
 * run to a channel keeps the opening's key (`alert#<incident>#opened#<channel>`), so a project
 * routed to every channel is told once whichever path gets there first.
 */
export function stepDeliveryKey(incidentId: number, slot: { epoch: number; cycle: number; step: number }, recipientKey: string): string {
  if (slot.epoch === 0 && slot.cycle === 0 && slot.step === 0 && /^\d+$/.test(recipientKey)) return deliveryKey(incidentId, 'opened', Number(recipientKey));
  return `esc#${incidentId}#${slot.epoch}.${slot.cycle}.${slot.step}#${recipientKey}`;
}

/** The recipient part of an ALERT_SENT key written for an incident's steps. */
function recipientOfKey(incidentId: number, key: string): string | undefined {
  if (key.startsWith(`esc#${incidentId}#`)) return key.slice(key.lastIndexOf('#') + 1);
  const opened = `alert#${incidentId}#opened#`;
  return key.startsWith(opened) ? key.slice(opened.length) : undefined;
}

/**
 * The consumer of the `alerts` queue (core/outbox/consumer.ts): what alerting delivers
 * (core/alerting/dispatch.ts), with incident changes routed here, and the escalation steps the
 * sweep fires. Each message is handled on its own; a malformed one, or one about an incident or
 * check that does not exist, can never succeed and is dropped.
 */
export async function handleAlertMessages(deps: Deps, messages: QueueMessage[], options: AlertHandlerOptions = {}): Promise<AlertBatchResult> {
  // One batch's messages share their configuration reads (core/store/batchReads.ts).
  const batchDeps: Deps = { ...deps, batchReads: newBatchReads() };
  return consumeMessages(
    'alerts',
    {
      ...alertHandlers(batchDeps, options, dispatchRoutedIncidentAlert),
      [EscalationStepMessage.shape.type.value]: handler(EscalationStepMessage, async (body) =>
        unfinishedOf(await dispatchEscalationStep(batchDeps, body, batchDeps.clock.now(), options)),
      ),
    },
    messages,
  );
}

/** What the `alerts` consumer says about a batch: the ids to retry and how long receivers asked to wait. */
export type AlertBatchResult = BatchResult;

const SYSTEM = { kind: 'system' } as const;

function incidentMessage(incident: IncidentItem, at: string): IncidentAlertMessage {
  return {
    type: 'incident.opened',
    incidentId: incident.incidentId,
    workspaceId: incident.workspaceId,
    projectId: incident.projectId ?? null,
    checkId: incident.checkId ?? null,
    severity: incident.severity,
    at,
  };
}

/** One delivery of a step to one recipient, recorded as an ALERT_SENT event naming step, target and recipient. */
function stepDelivery(deps: Deps, context: AlertContext, channel: AlertChannelItem, key: string, recorded: string, now: Date): Delivery {
  const { incident } = context;
  return {
    key,
    event: context.notification.event,
    // Each recipient's links name that recipient (a channel, or a person paged by the step).
    compose: async (webhookId) => composeAlert(context, webhookId, await alertActions(deps, incident, context.notification.event, channel, now)),
    claim: timelineRecordClaim(deps, incident, key, recorded),
  };
}

async function checkOf(deps: Deps, incident: IncidentItem) {
  return incident.checkId !== undefined ? await alertCheckOf(deps, incident.checkId) : undefined;
}

/** `check`: the incident's check as the caller read it for this message (its mute), not read again here. */
async function sendStep(
  deps: Deps,
  incident: IncidentItem,
  check: { checkId: number; name: string } | undefined,
  slot: { epoch: number; cycle: number; step: number; at: string; escalated: boolean },
  recipients: Recipient[],
  now: Date,
  options: AlertHandlerOptions,
): Promise<DispatchOutcome> {
  const event = slot.escalated ? 'incident.escalated' : 'incident.opened';
  const notification: AlertNotification = { event, kind: `step#${slot.epoch}.${slot.cycle}.${slot.step}`, timelineKey: 'opened' };
  const detail = slot.escalated ? `Escalation step ${slot.step} (cycle ${slot.cycle}): nobody has acknowledged the incident yet` : undefined;
  const context: AlertContext = {
    message: incidentMessage(incident, slot.at),
    notification,
    incident,
    check: check ? { checkId: check.checkId, name: check.name } : undefined,
    detail,
  };
  const outcomes = await Promise.all(
    recipients.map((r) =>
      deliverOnce(
        deps,
        r.channel,
        stepDelivery(
          deps,
          context,
          r.channel,
          stepDeliveryKey(incident.incidentId, slot, r.key),
          `Step ${slot.step} (cycle ${slot.cycle}${slot.epoch > 0 ? `, run ${slot.epoch}` : ''}), ${targetLabel(r.target)}: alert sent, ${r.label} (${event})`,
          now,
        ),
        now,
        options,
      ),
    ),
  );
  return { status: 'DISPATCHED', channels: outcomes };
}

/** A step the sweep fired: skipped once the incident is acknowledged, resolved or in a later run. */
export async function dispatchEscalationStep(deps: Deps, message: EscalationStepMessage, now: Date, options: AlertHandlerOptions = {}): Promise<DispatchOutcome> {
  const incident = await readIncident(deps, message.incidentId);
  if (!incident || incident.workspaceId !== message.workspaceId) return { status: 'SKIPPED', reason: 'NO_INCIDENT' };
  if (incident.state === 'RESOLVED' || incident.acknowledgedAt !== undefined || (incident.escalationEpoch ?? 0) !== message.epoch) return { status: 'SKIPPED', reason: 'STOPPED' };
  const check = await checkOf(deps, incident);
  if (check?.muteNotifications) return { status: 'SKIPPED', reason: 'MUTED' };
  // The sweep holds the steps while a window suppresses alerts, and starts again from step 0 after it.
  if ((await windowEffects(deps, { workspaceId: incident.workspaceId, projectId: incident.projectId ?? null }, now)).suppressAlerts)
    return { status: 'SKIPPED', reason: 'MAINTENANCE' };
  const plan = planOf(await routeIncident(deps, incident));
  const step = plan?.steps[message.step];
  if (!step) return { status: 'DISPATCHED', channels: [] };
  const at = new Date(message.at);
  const { recipients, unreached } = await recipientsOf(deps, incident.workspaceId, step.targets, at);
  await noteUnreached(deps, incident, message, unreached, now);
  return sendStep(deps, incident, check, { ...message }, recipients, now, options);
}

/** A step's targets that reached nobody, on the timeline (once each: keyed by the step and target). */
async function noteUnreached(deps: Deps, incident: IncidentItem, slot: { epoch: number; cycle: number; step: number }, unreached: readonly Unreached[], now: Date): Promise<void> {
  for (const miss of unreached) {
    const key = `esc#${incident.incidentId}#${slot.epoch}.${slot.cycle}.${slot.step}#none#${targetLabel(miss.target).replace(/\W+/g, '')}`;
    await appendIncidentEvent(
      deps,
      incident,
      {
        key,
        type: 'ALERT_SENT',
        message: `Step ${slot.step} (cycle ${slot.cycle}), ${targetLabel(miss.target)}: nobody told (${miss.note})`,
        occurredAt: now.toISOString(),
        actor: SYSTEM,
      },
      now,
    );
  }
}

/**
 * The incident as the write that owed the alert left it, from a writer that sends its own alerts
 * (core/escalation/handOff.ts): not read again; and `later`, which takes the incident writes this
 * dispatch makes (the escalation's plan, or its hold) to run after that writer's outbox is cleared,
 * the first of them with the clear folded in where it can be (`OutboxClear`, core/outbox/relay.ts).
 */
export type HandedIncident = { incident: IncidentItem; later(write: (clearing?: OutboxClear) => Promise<void>): void };

/** An incident change, routed: every channel as before, or the policy's / rules' recipients. */
export async function dispatchRoutedIncidentAlert(
  deps: Deps,
  message: IncidentAlertMessage,
  now: Date,
  options: AlertHandlerOptions = {},
  handed?: HandedIncident,
): Promise<DispatchOutcome> {
  const incident = handed ? handed.incident : await readIncident(deps, message.incidentId);
  const ours = incident && incident.workspaceId === message.workspaceId ? incident : undefined;
  const write = async (change: (clearing?: OutboxClear) => Promise<void>): Promise<void> => (handed ? handed.later(change) : change());
  // One round of reads at once: the first alert is on the clock (bench: first_alert_ms_p99).
  const [routing, check, effects] = ours
    ? await Promise.all([
        routeIncident(deps, ours),
        checkOf(deps, ours),
        windowEffects(deps, { workspaceId: ours.workspaceId, projectId: ours.projectId ?? null }, new Date(message.at)),
      ])
    : [undefined, undefined, undefined];
  // After the opening's own step, the steps after it are planned here, with what was just read.
  const planned = async <T>(outcome: T, muted: boolean): Promise<T> => {
    if (ours && routing && message.type === 'incident.opened')
      await write((clearing) => planOpenedEscalation(deps, ours, now, { plan: planOf(routing), muted, suppressed: false }, clearing));
    return outcome;
  };
  if (!ours || !routing || routing.kind === 'channels') {
    // What was just read for this message is passed on: one get each of the incident and its check per alert, not two.
    const outcome = await dispatchIncidentAlert(deps, message, now, options, { incident: ours, check });
    if (ours && outcome.status === 'SKIPPED' && outcome.reason === 'MAINTENANCE' && message.type === 'incident.opened') {
      await write((clearing) => markHeld(deps, ours.incidentId, now, clearing));
      return outcome;
    }
    return planned(outcome, check?.muteNotifications === true);
  }
  const notification = notificationFor(message);
  if (!notification) return { status: 'SKIPPED', reason: 'NOT_NOTIFIED' };
  if (check?.muteNotifications) return planned({ status: 'SKIPPED', reason: 'MUTED' }, true);
  if (effects?.suppressAlerts) {
    if (message.type === 'incident.opened') await write((clearing) => markHeld(deps, ours.incidentId, now, clearing));
    return { status: 'SKIPPED', reason: 'MAINTENANCE' };
  }
  if (message.type === 'incident.opened') {
    const first = planOf(routing)?.steps[0];
    if (!first || first.delayMinutes > 0) return planned({ status: 'DISPATCHED', channels: [] }, false);
    const slot = { epoch: 0, cycle: 0, step: 0, at: message.at, escalated: false };
    const { recipients, unreached } = await recipientsOf(deps, ours.workspaceId, first.targets, new Date(message.at));
    await noteUnreached(deps, ours, slot, unreached, now);
    return planned(await sendStep(deps, ours, check, slot, recipients, now, options), false);
  }
  // Acknowledged, resolved, raised: to every recipient already told, once each.
  const events = await listIncidentEvents(deps, ours.incidentId);
  const told = events.filter((e) => e.type === 'ALERT_SENT').flatMap((e) => recipientOfKey(ours.incidentId, e.eventKey) ?? []);
  const recipients = await recipientsByKey(deps, ours.workspaceId, told, now.toISOString());
  // The change's own entry (its wording is the alert's detail) is in the timeline just listed.
  const detail = events.find((e) => e.eventKey === notification.timelineKey)?.message;
  const context: AlertContext = { message, notification, incident: ours, check: check ? { checkId: check.checkId, name: check.name } : undefined, detail };
  const outcomes = await Promise.all(
    recipients.map((r) => {
      const key = `alert#${ours.incidentId}#${notification.kind}#${r.key}`;
      return deliverOnce(deps, r.channel, stepDelivery(deps, context, r.channel, key, `Alert sent, ${r.label} (${notification.event})`, now), now, options);
    }),
  );
  return { status: 'DISPATCHED', channels: outcomes };
}
