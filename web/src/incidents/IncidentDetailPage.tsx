import { Link, useParams } from 'react-router-dom';
import { ApiError } from '../api/client';
import { EmptyState } from '../ui/EmptyState';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { useWorkspace } from '../workspace/context';
import { useIncident, useIncidentAction, type Incident } from './api';
import { duration, SeverityBadge, StateBadge, When } from './IncidentBadges';
import { Notes } from './Notes';
import { Timeline } from './Timeline';

/** One incident: what is down and since when, who was told, acknowledge, resolve, and the notes. */
export function IncidentDetailPage() {
  const id = Number(useParams().id);
  const incident = useIncident(id);
  if (!Number.isInteger(id) || id < 1 || (incident.error instanceof ApiError && incident.error.status === 404)) {
    return (
      <EmptyState title="Incident not found">
        It may belong to another workspace. <Link to="/incidents">Back to the incidents</Link>.
      </EmptyState>
    );
  }
  if (incident.isPending) return <Skeleton label="Loading the incident" lines={6} />;
  if (incident.isError)
    return (
      <p className="form-error" role="alert">
        The incident could not be loaded: {incident.error.message}
      </p>
    );
  return <Detail incident={incident.data} />;
}

function Detail({ incident }: { incident: Incident }) {
  const { role } = useWorkspace();
  const canAct = role !== null && role !== 'VIEWER';
  return (
    <article className="incident" aria-labelledby="incident-title">
      <p>
        <Link to="/incidents">← Incidents</Link>
      </p>
      <h1 id="incident-title">{incident.title}</h1>
      <dl className="facts">
        <div>
          <dt>State</dt>
          <dd>
            <StateBadge state={incident.state} />{' '}
            {incident.state === 'RESOLVED' && incident.resolvedAt !== null ? (
              <>
                since <When iso={incident.resolvedAt} /> (lasted {duration(incident.startedAt, incident.resolvedAt)})
              </>
            ) : (
              <>
                since <When iso={incident.startedAt} />
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Severity</dt>
          <dd>
            <SeverityBadge severity={incident.severity} />
          </dd>
        </div>
        <div>
          <dt>Check</dt>
          <dd>{incident.check ? <Link to={`/checks/${incident.check.id}`}>{incident.check.name}</Link> : (incident.dependencyName ?? 'Declared by hand')}</dd>
        </div>
        <div>
          <dt>Acknowledged</dt>
          <dd>
            {incident.acknowledgedAt === null ? (
              'Not yet'
            ) : (
              <>
                <When iso={incident.acknowledgedAt} />
                {incident.acknowledgedByUser ? ` by ${incident.acknowledgedByUser.email}` : ' by an API key'}
              </>
            )}
          </dd>
        </div>
        {incident.summary ? (
          <div>
            <dt>Summary</dt>
            <dd className="prose">{incident.summary}</dd>
          </div>
        ) : null}
      </dl>
      {canAct ? <Actions incident={incident} /> : <p className="muted">Viewers can follow an incident; a member acknowledges and resolves it.</p>}
      <Timeline incident={incident} />
      <Notes incidentId={incident.id} canWrite={canAct} />
    </article>
  );
}

function Actions({ incident }: { incident: Incident }) {
  const toast = useToast();
  const action = useIncidentAction(incident.id);
  const run = (verb: 'acknowledge' | 'resolve') =>
    action.mutate(verb, {
      onSuccess: () => toast({ title: verb === 'acknowledge' ? 'Incident acknowledged' : 'Incident resolved' }),
      onError: (error) => toast({ title: `Could not ${verb}`, description: error.message, tone: 'error' }),
    });
  if (incident.state === 'RESOLVED') return null;
  return (
    <div className="button-row incident-actions">
      <button type="button" className="button" disabled={action.isPending || incident.acknowledgedAt !== null} onClick={() => run('acknowledge')}>
        {incident.acknowledgedAt === null ? 'Acknowledge' : 'Acknowledged'}
      </button>
      <button type="button" className="button primary" disabled={action.isPending} onClick={() => run('resolve')}>
        Resolve
      </button>
    </div>
  );
}
