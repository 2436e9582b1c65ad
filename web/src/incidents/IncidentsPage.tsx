import { Link, useSearchParams } from 'react-router-dom';
import { EmptyState } from '../ui/EmptyState';
import { Skeleton } from '../ui/Skeleton';
import { useWorkspace } from '../workspace/context';
import { useIncidentList, type IncidentFilters } from './api';
import { duration, SeverityBadge, StateBadge, When } from './IncidentBadges';

const TABS = [
  { state: 'ACTIVE', label: 'Active' },
  { state: 'RESOLVED', label: 'Resolved' },
] as const;

/**
 * Active and resolved incidents of the workspace (the project chosen in the header narrows it),
 * newest first, a server page at a time. The state and page live in the URL so a link or a
 * reload shows the same list.
 */
export function IncidentsPage() {
  const { workspaceId, projectId } = useWorkspace();
  const [params, setParams] = useSearchParams();
  const state: IncidentFilters['state'] = params.get('state') === 'resolved' ? 'RESOLVED' : 'ACTIVE';
  const page = Math.max(1, Number(params.get('page')) || 1);
  const go = (next: { state?: IncidentFilters['state']; page?: number }) => {
    const s = next.state ?? state;
    const p = next.page ?? 1;
    setParams({ ...(s === 'RESOLVED' ? { state: 'resolved' } : {}), ...(p > 1 ? { page: String(p) } : {}) });
  };
  return (
    <>
      <h1>Incidents</h1>
      <div className="button-row tabs" role="group" aria-label="Which incidents">
        {TABS.map((tab) => (
          <button
            key={tab.state}
            type="button"
            className={`button${tab.state === state ? ' primary' : ''}`}
            aria-pressed={tab.state === state}
            onClick={() => go({ state: tab.state })}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {workspaceId === null ? (
        <Skeleton label="Loading incidents" lines={5} />
      ) : (
        <IncidentTable filters={{ workspaceId, projectId, state, page }} onPage={(p) => go({ page: p })} />
      )}
    </>
  );
}

function IncidentTable({ filters, onPage }: { filters: IncidentFilters; onPage: (page: number) => void }) {
  const list = useIncidentList(filters);
  if (list.isPending) return <Skeleton label="Loading incidents" lines={5} />;
  if (list.isError)
    return (
      <p className="form-error" role="alert">
        Incidents could not be loaded: {list.error.message}
      </p>
    );
  const { items, page, pageCount, total } = list.data;
  if (items.length === 0) {
    return filters.state === 'ACTIVE' ? (
      <EmptyState title="No active incidents">
        Nothing is down. When a check goes down, its incident appears here live. <Link to="/checks">Review your checks</Link> or look at the{' '}
        <Link to="/incidents?state=resolved">resolved incidents</Link>.
      </EmptyState>
    ) : (
      <EmptyState title="No resolved incidents">
        Resolved incidents are kept here for review. <Link to="/incidents">See the active ones</Link>.
      </EmptyState>
    );
  }
  return (
    <>
      <div className="table-wrap">
        <table className="incidents-table">
          <caption className="visually-hidden">
            {filters.state === 'ACTIVE' ? 'Active' : 'Resolved'} incidents, newest first ({total})
          </caption>
          <thead>
            <tr>
              <th scope="col">State</th>
              <th scope="col">Severity</th>
              <th scope="col">Incident</th>
              <th scope="col">Check</th>
              <th scope="col">Project</th>
              <th scope="col">Started</th>
              <th scope="col">{filters.state === 'ACTIVE' ? 'Acknowledged' : 'Lasted'}</th>
            </tr>
          </thead>
          <tbody>
            {items.map((incident) => (
              <tr key={incident.id} data-incident={incident.id}>
                <td>
                  <StateBadge state={incident.state} />
                </td>
                <td>
                  <SeverityBadge severity={incident.severity} />
                </td>
                <td>
                  <Link to={`/incidents/${incident.id}`}>{incident.title}</Link>
                </td>
                <td>{incident.check ? <Link to={`/checks/${incident.check.id}`}>{incident.check.name}</Link> : <span className="muted">—</span>}</td>
                <td>{incident.project?.name ?? <span className="muted">—</span>}</td>
                <td>
                  <When iso={incident.startedAt} />
                </td>
                <td>
                  {incident.resolvedAt !== null ? (
                    duration(incident.startedAt, incident.resolvedAt)
                  ) : incident.acknowledgedAt !== null ? (
                    <When iso={incident.acknowledgedAt} />
                  ) : (
                    'Not yet'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav className="pager button-row" aria-label="Incident pages">
        <button type="button" className="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous page
        </button>
        <span>
          Page {page} of {Math.max(1, pageCount)}
        </span>
        <button type="button" className="button" disabled={page >= pageCount} onClick={() => onPage(page + 1)}>
          Next page
        </button>
      </nav>
    </>
  );
}
