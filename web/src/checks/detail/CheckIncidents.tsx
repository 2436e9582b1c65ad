import { Link } from 'react-router-dom';
import { Skeleton } from '../../ui/Skeleton';
import { Time } from '../../ui/time';
import { useCheckIncidents } from '../api';

/** The check's incidents, newest first, each a link to its page. */
export function CheckIncidents({ checkId, workspaceId }: { checkId: number; workspaceId: number }) {
  const incidents = useCheckIncidents(checkId, workspaceId);
  return (
    <section aria-labelledby="incidents-title">
      <h2 id="incidents-title">Incidents</h2>
      {incidents.isPending ? (
        <Skeleton lines={2} label="Loading incidents" />
      ) : incidents.isError ? (
        <p className="form-error">{incidents.error.message}</p>
      ) : incidents.data.items.length === 0 ? (
        <p className="muted">No incident so far. One opens when the check goes down.</p>
      ) : (
        <ul className="incident-list">
          {incidents.data.items.map((incident) => (
            <li key={incident.id}>
              <Link to={`/incidents/${incident.id}`}>{incident.title}</Link> · {incident.state.toLowerCase()} · {incident.severity} · started <Time iso={incident.startedAt} past />
              {incident.resolvedAt ? (
                <>
                  {' '}
                  · resolved <Time iso={incident.resolvedAt} past />
                </>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
