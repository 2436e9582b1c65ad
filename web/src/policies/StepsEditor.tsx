import type { Target } from './api';
import { emptyStep, type DraftStep } from './draft';
import { KIND_LABEL, type Lookups } from './lookups';

const KINDS = Object.keys(KIND_LABEL) as Target['targetType'][];

/**
 * The ordered steps: each a delay after the incident opened and its targets. Every control is
 * labelled with its step and target number, so a screen reader says which one it is in.
 */
export function StepsEditor({ steps, options, onChange }: { steps: DraftStep[]; options: Lookups; onChange: (steps: DraftStep[]) => void }) {
  const update = (index: number, step: DraftStep) => onChange(steps.map((s, i) => (i === index ? step : s)));
  const addStep = () => {
    const last = Number(steps[steps.length - 1]?.delay ?? '0');
    onChange([...steps, emptyStep(String(Number.isFinite(last) ? last + 15 : 15))]);
  };
  return (
    <fieldset className="steps">
      <legend>Steps</legend>
      <ol className="step-list">
        {steps.map((step, i) => {
          const n = i + 1;
          return (
            <li key={step.key} className="step card" data-step={i}>
              <div className="step-head">
                <h2 className="step-title">Step {n}</h2>
                {steps.length > 1 ? (
                  <button type="button" className="button ghost" onClick={() => onChange(steps.filter((_, j) => j !== i))}>
                    Remove step {n}
                  </button>
                ) : null}
              </div>
              <label className="inline-field">
                <span>Step {n}: minutes after the incident opened</span>
                <input
                  name={`step-${i}-delay`}
                  type="number"
                  inputMode="numeric"
                  min={0}
                  max={10080}
                  required
                  value={step.delay}
                  onChange={(e) => update(i, { ...step, delay: e.target.value })}
                />
              </label>
              <ul className="target-list">
                {step.targets.map((target, j) => {
                  const setTarget = (next: { kind: Target['targetType']; id: number }) => update(i, { ...step, targets: step.targets.map((t, k) => (k === j ? next : t)) });
                  const choices = options[target.kind];
                  return (
                    <li key={j} className="target-row">
                      <select
                        aria-label={`Step ${n}, target ${j + 1}: kind`}
                        name={`step-${i}-target-${j}-kind`}
                        value={target.kind}
                        onChange={(e) => setTarget({ kind: e.target.value as Target['targetType'], id: 0 })}
                      >
                        {KINDS.map((kind) => (
                          <option key={kind} value={kind}>
                            {KIND_LABEL[kind]}
                          </option>
                        ))}
                      </select>
                      <select
                        aria-label={`Step ${n}, target ${j + 1}: which ${KIND_LABEL[target.kind].toLowerCase()}`}
                        name={`step-${i}-target-${j}`}
                        value={target.id}
                        onChange={(e) => setTarget({ ...target, id: Number(e.target.value) })}
                      >
                        <option value={0}>{choices.length === 0 ? `No ${KIND_LABEL[target.kind].toLowerCase()} yet` : 'Choose…'}</option>
                        {choices.map((o) => (
                          <option key={o.id} value={o.id}>
                            {o.label}
                          </option>
                        ))}
                      </select>
                      {step.targets.length > 1 ? (
                        <button
                          type="button"
                          className="button ghost"
                          aria-label={`Remove target ${j + 1} of step ${n}`}
                          onClick={() => update(i, { ...step, targets: step.targets.filter((_, k) => k !== j) })}
                        >
                          Remove
                        </button>
                      ) : null}
                    </li>
                  );
                })}
              </ul>
              <button type="button" className="button" onClick={() => update(i, { ...step, targets: [...step.targets, { kind: 'ALERT_CHANNEL', id: 0 }] })}>
                Add a target to step {n}
              </button>
            </li>
          );
        })}
      </ol>
      <button type="button" className="button" onClick={addStep} disabled={steps.length >= 20}>
        Add step
      </button>
    </fieldset>
  );
}
