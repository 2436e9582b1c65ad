import { useEffect, useState, type KeyboardEvent } from 'react';
import { Link } from 'react-router-dom';
import { explainError, useAccess } from '../ui/permission';
import { EmptyState } from '../ui/EmptyState';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { useWorkspace } from '../workspace/context';
import { useProjects } from '../workspace/queries';
import { usePolicies, useRules, useSwapPriority, type Policy } from './api';

/**
 * Escalation policies in the order they are tried (priority 0 first). Admins reorder them from
 * the keyboard: focus a row's handle and press the up or down arrow (or use its buttons). Below,
 * each project's legacy rules, with a way to turn them into a policy.
 */
export function PoliciesPage() {
  const { workspaceId } = useWorkspace();
  const { canAdmin } = useAccess();
  const policies = usePolicies(workspaceId);
  const swap = useSwapPriority();
  const toast = useToast();
  const [said, setSaid] = useState('');
  const [moved, setMoved] = useState<number | null>(null);
  const list = policies.data ?? [];
  // The moved row is re-rendered in its new place: keep the keyboard where the user left it.
  useEffect(() => {
    if (moved !== null && !swap.isPending) document.querySelector<HTMLButtonElement>(`[data-handle="${moved}"]`)?.focus();
  }, [moved, swap.isPending, policies.data]);
  const move = (index: number, by: -1 | 1) => {
    const a = list[index];
    const b = list[index + by];
    if (!a || !b || swap.isPending) return;
    const free = Math.max(...list.map((p) => p.priority)) + 1;
    setMoved(a.id);
    swap.mutate(
      { a, b, free },
      {
        onSuccess: () => setSaid(`${a.name} moved to position ${index + by + 1} of ${list.length}`),
        onError: (err) => toast({ title: 'Could not reorder', description: explainError(err), tone: 'error' }),
      },
    );
  };
  const onHandleKey = (index: number) => (e: KeyboardEvent<HTMLButtonElement>) => {
    if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
    e.preventDefault();
    move(index, e.key === 'ArrowUp' ? -1 : 1);
  };
  return (
    <>
      <div className="page-head">
        <h1>Escalation policies</h1>
        {canAdmin ? (
          <Link className="button primary" to="/policies/new">
            New policy
          </Link>
        ) : null}
      </div>
      <p className="muted">An incident follows the first enabled policy, top to bottom, that covers its project.</p>
      <p className="visually-hidden" role="status" aria-live="polite">
        {said}
      </p>
      {policies.isPending ? (
        <Skeleton label="Loading policies" lines={4} />
      ) : policies.isError ? (
        <p className="form-error" role="alert">
          Policies could not be loaded: {explainError(policies.error)}
        </p>
      ) : list.length === 0 ? (
        <EmptyState title="No escalation policies yet">
          A policy says who is told about an incident, and when: channels, people, teams and whoever is on call.{' '}
          {canAdmin ? <Link to="/policies/new">Create the first one</Link> : null}
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="data-table policies-table">
            <caption className="visually-hidden">Escalation policies in the order they are tried</caption>
            <thead>
              <tr>
                <th scope="col">Order</th>
                <th scope="col">Policy</th>
                <th scope="col">Projects</th>
                <th scope="col">Steps</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {list.map((policy, i) => (
                <tr key={policy.id} data-policy-id={policy.id}>
                  <td>
                    {canAdmin ? (
                      <div className="button-row reorder">
                        <button
                          type="button"
                          className="button handle"
                          data-handle={policy.id}
                          aria-label={`Reorder ${policy.name}, position ${i + 1} of ${list.length}`}
                          aria-keyshortcuts="ArrowUp ArrowDown"
                          aria-describedby="reorder-hint"
                          onKeyDown={onHandleKey(i)}
                        >
                          <span aria-hidden="true">⇅</span> {i + 1}
                        </button>
                        <button type="button" className="button ghost" aria-label={`Move ${policy.name} up`} disabled={i === 0 || swap.isPending} onClick={() => move(i, -1)}>
                          <span aria-hidden="true">↑</span>
                        </button>
                        <button
                          type="button"
                          className="button ghost"
                          aria-label={`Move ${policy.name} down`}
                          disabled={i === list.length - 1 || swap.isPending}
                          onClick={() => move(i, 1)}
                        >
                          <span aria-hidden="true">↓</span>
                        </button>
                      </div>
                    ) : (
                      i + 1
                    )}
                  </td>
                  <th scope="row">
                    <Link to={`/policies/${policy.id}`}>{policy.name}</Link>
                  </th>
                  <td>{policy.projectIds === null ? 'Every project' : `${policy.projectIds.length} project${policy.projectIds.length === 1 ? '' : 's'}`}</td>
                  <td>{describeSteps(policy)}</td>
                  <td>{policy.enabled ? 'Enabled' : 'Disabled'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {canAdmin ? (
            <p id="reorder-hint" className="muted">
              To reorder, focus a policy's handle and press the up or down arrow.
            </p>
          ) : null}
        </div>
      )}
      {workspaceId === null ? null : <LegacyRules workspaceId={workspaceId} />}
    </>
  );
}

const describeSteps = (policy: Policy) =>
  `${policy.steps.length} step${policy.steps.length === 1 ? '' : 's'} over ${policy.steps[policy.steps.length - 1]?.delayMinutes ?? 0} min${policy.repeatCount > 0 ? `, repeated ${policy.repeatCount}×` : ''}`;

/** Legacy rules (per project, before policies existed): listed, each project's with a way to become a policy. */
function LegacyRules({ workspaceId }: { workspaceId: number }) {
  const projects = useProjects(workspaceId);
  return (
    <section aria-labelledby="legacy-title" className="legacy">
      <h2 id="legacy-title">Legacy escalation rules</h2>
      <p className="muted">Rules apply to a project only when no policy covers it. Turn them into a policy to edit them with the others.</p>
      {(projects.data ?? []).map((project) => (
        <ProjectRules key={project.id} projectId={project.id} projectName={project.name} />
      ))}
    </section>
  );
}

function ProjectRules({ projectId, projectName }: { projectId: number; projectName: string }) {
  const rules = useRules(projectId);
  const { canAdmin } = useAccess();
  if (rules.isPending || rules.isError || rules.data.length === 0) return null;
  return (
    <div className="card legacy-project" data-project-id={projectId}>
      <h3>{projectName}</h3>
      <ul>
        {rules.data.map((rule) => (
          <li key={rule.id}>
            After {rule.delayMinutes} min: {rule.alertChannel.name}
            {rule.enabled ? '' : ' (disabled)'}
          </li>
        ))}
      </ul>
      {canAdmin ? (
        <Link className="button" to={`/policies/new?fromProject=${projectId}`}>
          Turn {projectName}'s rules into a policy
        </Link>
      ) : null}
    </div>
  );
}
