import { useEffect, useState } from 'react';
import { explainError } from '../ui/permission';
import { absoluteTime } from '../ui/time';
import { usePreview, type Simulation, type StepInput } from './api';
import { KIND_LABEL, nameOf, type Lookups } from './lookups';

/** Waits for the typing to pause before asking the server again (one request per pause, not per key). */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

type TargetView = Simulation['steps'][number]['targets'][number];

function whoIsTold(target: TargetView, options: Lookups): string {
  const people = target.users.map((u) => u.name ?? u.email).join(', ');
  switch (target.targetType) {
    case 'ALERT_CHANNEL':
      return `${KIND_LABEL.ALERT_CHANNEL} ${target.alertChannel?.name ?? nameOf(options, target)}${target.alertChannel && !target.alertChannel.enabled ? ' (disabled)' : ''}`;
    case 'USER':
      return people || nameOf(options, target);
    case 'TEAM':
      return `Team ${nameOf(options, target)}: ${people || 'nobody'}`;
    case 'ON_CALL_SCHEDULE':
      return `On call on ${nameOf(options, target)}: ${people || 'nobody'}`;
  }
}

/**
 * "For an incident now: who is told, and when", from the server's simulation of the steps as
 * they stand in the editor (the same timeline the engine runs), refreshed as they change.
 */
export function Preview({ workspaceId, steps, repeatCount, options }: { workspaceId: number; steps: StepInput[] | null; repeatCount: number; options: Lookups }) {
  const draft = useSettled(steps === null ? null : { steps, repeatCount }, 250);
  const preview = usePreview(workspaceId, draft);
  return (
    <section className="card preview" aria-labelledby="preview-title" aria-busy={preview.isFetching}>
      <h2 id="preview-title">For an incident now: who is told, and when</h2>
      {steps === null ? (
        <p className="muted">Give every step a delay and choose each target to see the preview.</p>
      ) : preview.isError ? (
        <p className="form-error">The preview waits for valid steps: {explainError(preview.error)}</p>
      ) : preview.data === undefined ? (
        <p className="muted">Working out who would be told…</p>
      ) : (
        <ol className="preview-steps" aria-live="polite">
          {preview.data.steps.map((step) => (
            <li key={`${step.cycle}-${step.position}`} data-step={step.position} data-cycle={step.cycle}>
              <strong>
                +{step.minutesAfterOpen} min{step.cycle > 0 ? ` (repeat ${step.cycle})` : ''}
              </strong>{' '}
              <span className="muted">{absoluteTime(step.at)}</span>
              <ul>
                {step.targets.map((target, i) => (
                  <li key={i} className="preview-target">
                    {whoIsTold(target, options)}
                    {target.note ? <span className="muted"> ({target.note})</span> : null}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
