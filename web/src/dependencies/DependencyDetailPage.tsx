import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { explainError, useAccess } from '../ui/permission';
import { Skeleton } from '../ui/Skeleton';
import { Time } from '../ui/time';
import { useToast } from '../ui/toast';
import { CATEGORY_LABEL, useDependency, useDependencyMutations, type DependencyDetail } from './api';
import { DependencyForm } from './DependencyForm';

const LINK_LABEL = { DEPENDENCY: 'The check belongs to it', DEPENDENCY_IDS: 'Listed among the check’s dependencies', REPORTED: 'Reported by the check’s pings' } as const;

/** One dependency: its facts, the checks that rely on it, and (for admins) its edit form. */
export function DependencyDetailPage() {
  const id = Number(useParams().id);
  const dependency = useDependency(id);
  if (dependency.isPending) return <Skeleton label="Loading the dependency" lines={5} />;
  if (dependency.isError)
    return (
      <p className="form-error" role="alert">
        The dependency could not be loaded: {explainError(dependency.error)}
      </p>
    );
  return <DependencyView dependency={dependency.data} />;
}

function DependencyView({ dependency }: { dependency: DependencyDetail }) {
  const { canAdmin } = useAccess();
  return (
    <>
      <p>
        <Link to="/dependencies">All dependencies</Link>
      </p>
      <h1>{dependency.name}</h1>
      <dl className="facts">
        <div>
          <dt>Category</dt>
          <dd>{dependency.category ? CATEGORY_LABEL[dependency.category] : '—'}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd data-status={dependency.status}>{dependency.status}</dd>
        </div>
        <div>
          <dt>Last reported</dt>
          <dd>
            <Time iso={dependency.lastReportedAt} past />
          </dd>
        </div>
        <div>
          <dt>URL</dt>
          <dd>
            {dependency.url ? (
              <a href={dependency.url} rel="noreferrer noopener" target="_blank">
                {dependency.url}
              </a>
            ) : (
              '—'
            )}
          </dd>
        </div>
        <div>
          <dt>Description</dt>
          <dd>{dependency.description ?? '—'}</dd>
        </div>
      </dl>
      <section aria-labelledby="dep-checks-title">
        <h2 id="dep-checks-title">Checks that depend on it</h2>
        {dependency.checks.length === 0 ? (
          <p className="muted">No check is linked yet: set the dependency on a check, or report it in a ping's payload.</p>
        ) : (
          <div className="table-wrap">
            <table className="data-table dependency-checks">
              <caption className="visually-hidden">Checks linked to {dependency.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Check</th>
                  <th scope="col">Status</th>
                  <th scope="col">How</th>
                </tr>
              </thead>
              <tbody>
                {dependency.checks.map((c) => (
                  <tr key={c.id} data-check-id={c.id}>
                    <th scope="row">
                      <Link to={`/checks/${c.id}`}>{c.name}</Link>
                    </th>
                    <td>{c.status}</td>
                    <td>{LINK_LABEL[c.link]}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {canAdmin ? <EditDependency dependency={dependency} /> : null}
    </>
  );
}

function EditDependency({ dependency }: { dependency: DependencyDetail }) {
  const { update, remove } = useDependencyMutations();
  const toast = useToast();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  return (
    <>
      <DependencyForm
        key={dependency.updatedAt}
        title="Edit the dependency"
        initial={dependency}
        submitLabel="Save"
        pending={update.isPending}
        error={update.error}
        onSubmit={(body) => update.mutate({ id: dependency.id, body }, { onSuccess: (d) => toast({ title: `Saved “${d.name}”` }) })}
      >
        <button type="button" className="button danger" aria-expanded={confirming} onClick={() => setConfirming(!confirming)}>
          Delete
        </button>
      </DependencyForm>
      {confirming ? (
        <div className="confirm" role="group" aria-label="Confirm delete">
          <p>Delete “{dependency.name}”? Its checks are kept and lose the link.</p>
          <button
            type="button"
            className="button danger"
            onClick={() =>
              remove.mutate(dependency.id, {
                onSuccess: () => {
                  toast({ title: `Deleted “${dependency.name}”` });
                  navigate('/dependencies');
                },
                onError: (err) => toast({ title: 'Could not delete', description: explainError(err), tone: 'error' }),
              })
            }
          >
            Delete for good
          </button>
        </div>
      ) : null}
    </>
  );
}
