import { Link } from 'react-router-dom';
import type { Policy } from './api';
import { KIND_LABEL, nameOf, useTargetOptions } from './lookups';
import { Preview } from './Preview';

/** A policy as read by someone who may not change it: the same facts and preview, no controls. */
export function PolicySummary({ policy }: { policy: Policy }) {
  const { options } = useTargetOptions(policy.workspaceId);
  return (
    <div className="policy-editor">
      <section className="card" aria-labelledby="policy-title">
        <h1 id="policy-title">{policy.name}</h1>
        <dl className="facts">
          <div>
            <dt>Priority</dt>
            <dd>{policy.priority}</dd>
          </div>
          <div>
            <dt>Projects</dt>
            <dd>{policy.projectIds === null ? 'Every project' : `${policy.projectIds.length} project(s)`}</dd>
          </div>
          <div>
            <dt>Repeats</dt>
            <dd>{policy.repeatCount}</dd>
          </div>
          <div>
            <dt>Acknowledgement timeout</dt>
            <dd>{policy.ackTimeoutMinutes === null ? 'None' : `${policy.ackTimeoutMinutes} min`}</dd>
          </div>
          <div>
            <dt>State</dt>
            <dd>{policy.enabled ? 'Enabled' : 'Disabled'}</dd>
          </div>
        </dl>
        <h2>Steps</h2>
        <ol>
          {policy.steps.map((step) => (
            <li key={step.position}>
              After {step.delayMinutes} min: {step.targets.map((t) => `${KIND_LABEL[t.targetType]} ${nameOf(options, t)}`).join(', ')}
            </li>
          ))}
        </ol>
        <Link to="/policies">All policies</Link>
      </section>
      <Preview workspaceId={policy.workspaceId} steps={policy.steps} repeatCount={policy.repeatCount} options={options} />
    </div>
  );
}
