import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { EmptyState } from '../ui/EmptyState';
import { allows, explainError, type Role } from '../ui/permission';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { useWorkspace } from '../workspace/context';
import { useProjects } from '../workspace/queries';
import { formatIn } from '../ui/time';
import { useDeployments, useMaintenanceWindows, useWindowMutations, type Deployment, type MaintenanceWindow } from './api';
import { WindowCalendar } from './WindowCalendar';
import { WindowForm } from './WindowForm';

/**
 * Maintenance windows and deployments: a list (cancel a window, end a deployment) and a month
 * calendar (`?view=calendar&month=2026-03`). The header's project narrows deployments to it.
 */
export function WindowsPage() {
  const { workspaceId, projectId, role } = useWorkspace();
  const projects = useProjects(workspaceId);
  const [params, setParams] = useSearchParams();
  const [creating, setCreating] = useState(false);
  const view = params.get('view') === 'calendar' ? 'calendar' : 'list';
  const month = /^\d{4}-\d{2}$/.test(params.get('month') ?? '') ? (params.get('month') as string) : null;
  const now = new Date();
  const [year, monthIndex] = month ? [Number(month.slice(0, 4)), Number(month.slice(5)) - 1] : [now.getFullYear(), now.getMonth()];
  const set = (next: Record<string, string>) => setParams({ ...Object.fromEntries(params), ...next });
  const shift = (by: number) => {
    const d = new Date(year, monthIndex + by, 1);
    set({ view: 'calendar', month: `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}` });
  };
  const projectIds = projectId !== null ? [projectId] : (projects.data?.map((p) => p.id) ?? []);
  return (
    <>
      <div className="page-head">
        <h1>Windows</h1>
        {allows(role, 'MEMBER') && !creating ? (
          <button type="button" className="button primary" onClick={() => setCreating(true)}>
            New maintenance window
          </button>
        ) : null}
      </div>
      {creating && workspaceId !== null ? <WindowForm workspaceId={workspaceId} onDone={() => setCreating(false)} /> : null}
      <div className="button-row tabs" role="group" aria-label="View">
        {(['list', 'calendar'] as const).map((v) => (
          <button key={v} type="button" className={`button${v === view ? ' primary' : ''}`} aria-pressed={v === view} onClick={() => set({ view: v })}>
            {v === 'list' ? 'List' : 'Calendar'}
          </button>
        ))}
      </div>
      {workspaceId === null ? <Skeleton label="Loading windows" lines={5} /> : <Views {...{ workspaceId, projectIds, role, view, year, monthIndex, shift }} />}
    </>
  );
}

type ViewsProps = { workspaceId: number; projectIds: number[]; role: Role | null; view: 'list' | 'calendar'; year: number; monthIndex: number; shift: (by: number) => void };

function Views({ workspaceId, projectIds, role, view, year, monthIndex, shift }: ViewsProps) {
  const windows = useMaintenanceWindows(workspaceId);
  const deployments = useDeployments(projectIds);
  if (windows.isPending || deployments.pending) return <Skeleton label="Loading windows" lines={5} />;
  if (windows.isError)
    return (
      <p className="form-error" role="alert">
        Windows could not be loaded: {windows.error.message}
      </p>
    );
  if (view === 'calendar')
    return (
      <section aria-label="Calendar">
        <div className="button-row">
          <button type="button" className="button" onClick={() => shift(-1)}>
            Previous month
          </button>
          <button type="button" className="button" onClick={() => shift(1)}>
            Next month
          </button>
        </div>
        <WindowCalendar year={year} month={monthIndex} windows={windows.data} deployments={deployments.items} />
      </section>
    );
  return (
    <>
      <WindowTable windows={windows.data} workspaceId={workspaceId} role={role} />
      <DeploymentTable deployments={deployments.items} workspaceId={workspaceId} role={role} />
    </>
  );
}

function WindowTable({ windows, workspaceId, role }: { windows: MaintenanceWindow[]; workspaceId: number; role: Role | null }) {
  const toast = useToast();
  const { cancel } = useWindowMutations(workspaceId);
  const [confirming, setConfirming] = useState<number | null>(null);
  const canAct = allows(role, 'MEMBER');
  const doCancel = (w: MaintenanceWindow) =>
    cancel.mutate(w.id, {
      onSuccess: () => {
        setConfirming(null);
        toast({ title: `Cancelled “${w.name}”` });
      },
      onError: (err) => toast({ title: 'Could not cancel the window', description: explainError(err, role), tone: 'error' }),
    });
  return (
    <section aria-labelledby="windows-title">
      <h2 id="windows-title">Maintenance windows</h2>
      {windows.length === 0 ? (
        <EmptyState title="No maintenance windows">A window keeps planned work from paging anyone: alerts, incidents or both are held while it runs.</EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="windows-table">
            <caption className="visually-hidden">Maintenance windows, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Window</th>
                <th scope="col">State</th>
                <th scope="col">Current or next</th>
                <th scope="col">Repeats</th>
                <th scope="col">Holds</th>
                {canAct ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {windows.map((w) => (
                <tr key={w.id} data-window={w.id}>
                  <td>{w.name}</td>
                  <td>
                    <span className={`state state-${w.state.toLowerCase()}`} data-state={w.state}>
                      {w.state.charAt(0) + w.state.slice(1).toLowerCase()}
                    </span>
                  </td>
                  <td>
                    {w.occurrenceStartAt && w.occurrenceEndAt
                      ? `${formatIn(Date.parse(w.occurrenceStartAt), w.timezone)} to ${formatIn(Date.parse(w.occurrenceEndAt), w.timezone)} (${w.timezone})`
                      : '—'}
                  </td>
                  <td>{w.recurringCron ? <code>{w.recurringCron}</code> : 'Once'}</td>
                  <td>{[w.suppressAlerts ? 'alerts' : null, w.suppressIncidents ? 'incidents' : null].filter(Boolean).join(', ') || 'nothing'}</td>
                  {canAct ? (
                    <td>
                      {w.state === 'SCHEDULED' || w.state === 'ACTIVE' ? (
                        confirming === w.id ? (
                          <span className="button-row">
                            <button type="button" className="button danger" onClick={() => doCancel(w)}>
                              Cancel “{w.name}” now
                            </button>
                            <button type="button" className="button" onClick={() => setConfirming(null)}>
                              Keep it
                            </button>
                          </span>
                        ) : (
                          <button type="button" className="button" onClick={() => setConfirming(w.id)}>
                            Cancel window
                          </button>
                        )
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function DeploymentTable({ deployments, workspaceId, role }: { deployments: Deployment[]; workspaceId: number; role: Role | null }) {
  const toast = useToast();
  const { endDeployment } = useWindowMutations(workspaceId);
  const canAct = allows(role, 'MEMBER');
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const end = (d: Deployment) =>
    endDeployment.mutate(d.id, {
      onSuccess: () => toast({ title: `Ended ${d.name ?? 'the deployment'}` }),
      onError: (err) => toast({ title: 'Could not end the deployment', description: explainError(err, role), tone: 'error' }),
    });
  return (
    <section aria-labelledby="deployments-title">
      <h2 id="deployments-title">Deployments</h2>
      {deployments.length === 0 ? (
        <p className="muted">No deployments recorded. CI opens and ends them through the Integration API.</p>
      ) : (
        <div className="table-wrap">
          <table className="deployments-table">
            <caption className="visually-hidden">Deployments, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Deployment</th>
                <th scope="col">State</th>
                <th scope="col">Started</th>
                <th scope="col">Ended</th>
                {canAct ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {deployments.map((d) => (
                <tr key={d.id} data-deployment={d.id}>
                  <td>
                    {d.name ?? 'Deployment'} {d.version ? <code>{d.version}</code> : null}
                    {d.author ? <span className="muted"> by {d.author}</span> : null}
                  </td>
                  <td>
                    <span className={`state state-${d.status.toLowerCase()}`} data-state={d.status}>
                      {d.status.charAt(0) + d.status.slice(1).toLowerCase()}
                    </span>
                  </td>
                  <td>{formatIn(Date.parse(d.startedAt), zone)}</td>
                  <td>{d.endedAt ? formatIn(Date.parse(d.endedAt), zone) : d.scheduledEndAt ? `planned ${formatIn(Date.parse(d.scheduledEndAt), zone)}` : '—'}</td>
                  {canAct ? (
                    <td>
                      {d.status === 'ACTIVE' ? (
                        <button type="button" className="button" onClick={() => end(d)} aria-label={`End ${d.name ?? 'deployment'} ${d.version ?? ''}`.trim()}>
                          End now
                        </button>
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
