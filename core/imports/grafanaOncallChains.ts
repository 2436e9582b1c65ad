import { MAX_DELAY_MINUTES, MAX_STEPS, MAX_TARGETS_PER_STEP, type StepInput, type Target } from '../escalation/schema.js';
import type { OncallChain, OncallStep } from './grafanaOncallPayload.js';
import type { People } from './grafanaOncallShifts.js';
import type { ImportReport } from './report.js';

/**
 * One OnCall escalation chain with its steps (OnCall's "escalation policies") as a Vigil policy
 * draft, purely (docs/guide/importing.md). OnCall runs its steps in order, `wait` steps pushing the
 * rest later; Vigil's steps each fire at a delay after the incident opened. So the notify steps
 * between two waits become one Vigil step at the delay the waits add up to.
 */

type Skipped = ImportReport['skipped'][number];

export type PolicyDraft = { name: string; repeatCount: number; steps: StepInput[]; skipped: Skipped[] };

/** OnCall repeats a chain from the start at most this many times when it reaches `repeat_escalation`. */
const ONCALL_REPEATS = 5;

const UNMAPPED: Record<string, string> = {
  notify_person_next_each_time: 'notifies one of its people per alert, in turn: a Vigil step notifies all its targets',
  notify_team_members: 'OnCall teams are not imported',
  notify_user_group: 'Slack user groups are not imported',
  notify_whole_channel: 'Slack channels are not imported',
  trigger_webhook: 'outgoing webhooks are not imported (add a webhook alert channel to the policy)',
  trigger_action: 'outgoing webhooks are not imported (add a webhook alert channel to the policy)',
  resolve: 'a Vigil policy does not resolve incidents',
  notify_if_time_from_to: 'time-of-day conditions have no Vigil counterpart',
  notify_if_num_alerts_in_window: 'alert-count conditions have no Vigil counterpart',
  declare_incident: 'declaring a Grafana incident has no Vigil counterpart',
};

const targetKey = (t: Target): string => JSON.stringify(t);

/** `scheduleIdOf` gives the Vigil id an OnCall schedule was (or, dry, would be) imported as. */
/** A draft with no steps is a chain that does not map; its `skipped` still says why each step did not. */
export function policyDraftOf(chain: OncallChain, oncallSteps: readonly OncallStep[], people: People, scheduleIdOf: (oncallScheduleId: string) => number | undefined): PolicyDraft {
  const name = chain.name.trim().slice(0, 255) || chain.id;
  const skipped: Skipped[] = [];
  const ordered = [...oncallSteps].sort((a, b) => a.position - b.position);
  const byDelay = new Map<number, Target[]>();
  let delaySeconds = 0;
  let repeatCount = 0;

  ordered.forEach((step, index) => {
    const label = `${name} / step ${index + 1} (${step.type ?? 'empty'})`;
    const skip = (reason: string) => skipped.push({ kind: 'escalation step', name: label, reason });
    const at = Math.ceil(delaySeconds / 60);
    const notify = (targets: Target[]) => {
      if (at > MAX_DELAY_MINUTES) return skip(`fires ${at} minutes in: a Vigil step fires at most ${MAX_DELAY_MINUTES} minutes after the incident opened`);
      byDelay.set(at, [...(byDelay.get(at) ?? []), ...targets]);
    };
    switch (step.type) {
      case 'wait':
        if (step.duration === null || step.duration === undefined) return skip('a wait without a duration');
        delaySeconds += step.duration;
        return;
      case 'notify_persons': {
        const persons = [...new Set(step.persons_to_notify ?? [])];
        const missing = persons.filter((p) => people.userIdOf(p) === undefined);
        for (const person of missing) skipped.push({ kind: 'escalation step target', name: `${label}: ${people.label(person)}`, reason: 'not a member of this workspace' });
        const found = persons.map((p) => people.userIdOf(p)).filter((id) => id !== undefined);
        if (found.length === 0) return skip(persons.length === 0 ? 'names nobody' : 'names nobody who is a member of this workspace');
        return notify(found.map((targetUserId) => ({ targetType: 'USER', targetUserId })));
      }
      case 'notify_on_call_from_schedule': {
        const targetScheduleId = step.notify_on_call_from_schedule ? scheduleIdOf(step.notify_on_call_from_schedule) : undefined;
        if (targetScheduleId === undefined) return skip(`its schedule ${step.notify_on_call_from_schedule ?? '(none)'} is not imported`);
        return notify([{ targetType: 'ON_CALL_SCHEDULE', targetScheduleId }]);
      }
      case 'repeat_escalation':
        if (index !== ordered.length - 1) return skip('repeats the chain from a step that is not its last: a Vigil policy repeats after its last step');
        repeatCount = ONCALL_REPEATS;
        return;
      default:
        return skip((step.type !== null && UNMAPPED[step.type]) || (step.type === null ? 'an empty step' : `step type ${step.type} has no Vigil counterpart`));
    }
  });

  const steps: StepInput[] = [];
  for (const [delayMinutes, targets] of [...byDelay].sort(([a], [b]) => a - b)) {
    const unique = [...new Map(targets.map((t) => [targetKey(t), t])).values()];
    if (unique.length > MAX_TARGETS_PER_STEP)
      skipped.push({
        kind: 'escalation step',
        name: `${name} / at ${delayMinutes} min`,
        reason: `${unique.length - MAX_TARGETS_PER_STEP} targets past the ${MAX_TARGETS_PER_STEP} a Vigil step holds`,
      });
    if (steps.length === MAX_STEPS) {
      skipped.push({ kind: 'escalation step', name: `${name} / at ${delayMinutes} min`, reason: `a Vigil policy holds at most ${MAX_STEPS} steps` });
      continue;
    }
    steps.push({ position: steps.length, delayMinutes, targets: unique.slice(0, MAX_TARGETS_PER_STEP) });
  }
  return { name, repeatCount, steps, skipped };
}
