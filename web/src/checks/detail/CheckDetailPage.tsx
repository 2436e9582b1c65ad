import { Link, useParams } from 'react-router-dom';
import { EmptyState } from '../../ui/EmptyState';
import { Skeleton } from '../../ui/Skeleton';
import { Time } from '../../ui/time';
import { useCheck, useCheckIncidents, type CheckDetail } from '../api';
import { KIND_LABEL } from '../kinds';
import { StatusBadge } from '../StatusBadge';
import { BadgePanel } from './BadgePanel';
import { CheckActions } from './CheckActions';
import { CheckIncidents } from './CheckIncidents';
import { PingPanel } from './PingPanel';
import { ProbePanel } from './ProbePanel';
import { SignalsTable } from './SignalsTable';
import { sinceOf } from './since';

export function CheckDetailPage() {
  const id = Number(useParams().id);
  const check = useCheck(id);
  if (check.isPending) return <Skeleton lines={10} label="Loading the check" />;
  if (check.isError)
    return (
      <EmptyState title="Check not found">
        It may have been deleted, or it belongs to another workspace. <Link to="/checks">Back to the checks</Link>.
      </EmptyState>
    );
  return <Detail check={check.data} />;
}

function Detail({ check }: { check: CheckDetail }) {
  const isHttp = check.checkType === 'HTTP';
  return (
    <article className="check-detail">
      <p>
        <Link to="/checks">← All checks</Link>
      </p>
      <header className="page-head">
        <div>
          <h1>{check.name}</h1>
          <p className="status-line">
            <StatusBadge status={check.status} /> <Since check={check} /> · {KIND_LABEL[check.checkType]}
            {isHttp && check.outbound ? (
              <span className="mono">
                {' '}
                · {check.outbound.method} {check.outbound.url}
              </span>
            ) : null}
          </p>
        </div>
        <CheckActions check={check} />
      </header>
      <dl className="facts">
        <div>
          <dt>{isHttp ? 'Last probe' : 'Last ping'}</dt>
          <dd>
            <Time iso={isHttp ? (check.probe?.lastRoundAt ?? null) : check.lastPingAt} past />
          </dd>
        </div>
        <div>
          <dt>Next due</dt>
          <dd>{check.paused ? 'paused' : <Time iso={check.nextDueAt} never="not scheduled" />}</dd>
        </div>
        <div>
          <dt>Schedule</dt>
          <dd>{check.schedule ? `${check.schedule} (${check.timezone ?? 'UTC'})` : `every ${check.intervalSeconds ?? '?'} s`}</dd>
        </div>
        <div>
          <dt>Grace</dt>
          <dd>{check.graceSeconds} s</dd>
        </div>
        <div>
          <dt>Severity late / down</dt>
          <dd>
            {check.lateSeverity} / {check.downSeverity}
          </dd>
        </div>
      </dl>
      {isHttp ? <ProbePanel check={check} /> : <PingPanel check={check} />}
      {isHttp ? null : <SignalsTable check={check} />}
      <CheckIncidents checkId={check.id} workspaceId={check.workspaceId} />
      <BadgePanel check={check} />
    </article>
  );
}

/** "Since when": see sinceOf for what each wording claims. */
function Since({ check }: { check: CheckDetail }) {
  const incidents = useCheckIncidents(check.id, check.workspaceId);
  const since = sinceOf(check, incidents.data?.items);
  if (since === null) return null;
  return (
    <span>
      {since.lead} <Time iso={since.at} past />
    </span>
  );
}
