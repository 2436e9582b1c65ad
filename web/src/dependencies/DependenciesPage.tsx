import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { explainError, useAccess } from '../ui/permission';
import { EmptyState } from '../ui/EmptyState';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { useWorkspace } from '../workspace/context';
import { CATEGORY_LABEL, useDependencies, useDependencyMutations } from './api';
import { DependencyForm } from './DependencyForm';

/** What the workspace's services depend on (declared here or reported by pings), by name, a page at a time. */
export function DependenciesPage() {
  const { workspaceId } = useWorkspace();
  const { canWrite } = useAccess();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const list = useDependencies(workspaceId, page);
  const { create } = useDependencyMutations();
  const toast = useToast();
  const navigate = useNavigate();
  return (
    <>
      <h1>Dependencies</h1>
      {list.isPending ? (
        <Skeleton label="Loading dependencies" lines={4} />
      ) : list.isError ? (
        <p className="form-error" role="alert">
          Dependencies could not be loaded: {explainError(list.error)}
        </p>
      ) : list.data.items.length === 0 ? (
        <EmptyState title="No dependencies yet">
          A dependency is a service yours relies on (a database, a payment API). Link checks to it to see what breaks when it does; pings can report them too.
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table className="data-table dependencies-table">
              <caption className="visually-hidden">Dependencies ({list.data.total})</caption>
              <thead>
                <tr>
                  <th scope="col">Dependency</th>
                  <th scope="col">Category</th>
                  <th scope="col">Status</th>
                  <th scope="col">Source</th>
                  <th scope="col">Description</th>
                </tr>
              </thead>
              <tbody>
                {list.data.items.map((d) => (
                  <tr key={d.id} data-dependency-id={d.id}>
                    <th scope="row">
                      <Link to={`/dependencies/${d.id}`}>{d.name}</Link>
                    </th>
                    <td>{d.category ? CATEGORY_LABEL[d.category] : '—'}</td>
                    <td data-status={d.status}>{d.status}</td>
                    <td>{d.source === 'MANUAL' ? 'Declared' : 'Reported by pings'}</td>
                    <td>{d.description ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {list.data.pageCount > 1 ? (
            <nav className="pager button-row" aria-label="Pages">
              <button type="button" className="button" disabled={page <= 1} onClick={() => setParams({ page: String(page - 1) })}>
                Previous
              </button>
              <span>
                Page {page} of {list.data.pageCount}
              </span>
              <button type="button" className="button" disabled={page >= list.data.pageCount} onClick={() => setParams({ page: String(page + 1) })}>
                Next
              </button>
            </nav>
          ) : null}
        </>
      )}
      {canWrite && workspaceId !== null ? (
        <DependencyForm
          title="New dependency"
          initial={null}
          submitLabel="Add dependency"
          pending={create.isPending}
          error={create.error}
          onSubmit={(v) =>
            create.mutate(
              {
                workspaceId,
                name: v.name,
                ...(v.description ? { description: v.description } : {}),
                ...(v.category ? { category: v.category } : {}),
                ...(v.url ? { url: v.url } : {}),
              },
              {
                onSuccess: (d) => {
                  toast({ title: `Added “${d.name}”` });
                  navigate(`/dependencies/${d.id}`);
                },
              },
            )
          }
        />
      ) : null}
    </>
  );
}
