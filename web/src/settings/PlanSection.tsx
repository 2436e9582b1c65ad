import { Skeleton } from '../ui/Skeleton';
import { explainError, useAccess } from '../ui/permission';
import { useUsage, useWorkspaceDetail } from './api';

/** The plan's limits beside what the workspace uses of them now. */
export function PlanSection({ workspaceId }: { workspaceId: number }) {
  const detail = useWorkspaceDetail(workspaceId);
  const usage = useUsage(workspaceId);
  const { role } = useAccess();
  if (detail.isPending) return <Skeleton label="Loading the plan" lines={3} />;
  if (detail.isError)
    return (
      <p className="form-error" role="alert">
        {explainError(detail.error, role)}
      </p>
    );
  const l = detail.data.limits;
  const used = (n: number | null | undefined) => (n === undefined ? '…' : n === null ? '?' : String(n));
  return (
    <section className="card section" aria-labelledby="plan-title">
      <h2 id="plan-title">Plan: {detail.data.plan}</h2>
      <table className="settings-table plan-table">
        <thead>
          <tr>
            <th scope="col">Limit</th>
            <th scope="col">Used</th>
            <th scope="col">Allowed</th>
          </tr>
        </thead>
        <tbody>
          <tr data-limit="checks">
            <th scope="row">Checks</th>
            <td>{used(usage.data?.checks)}</td>
            <td>{l.checks}</td>
          </tr>
          <tr data-limit="outbound">
            <th scope="row">Outbound checks (probed by us)</th>
            <td>{used(usage.data?.outbound)}</td>
            <td>{l.outboundChecks}</td>
          </tr>
          <tr>
            <th scope="row">Shortest check interval</th>
            <td>—</td>
            <td>
              {l.intervalFloorSeconds} s (outbound {l.outboundIntervalFloorSeconds} s)
            </td>
          </tr>
          <tr>
            <th scope="row">Subscribers per status page</th>
            <td>—</td>
            <td>{l.statusPageSubscribers}</td>
          </tr>
          <tr>
            <th scope="row">Muting checks</th>
            <td>—</td>
            <td>{l.canMute ? 'Included' : 'Not on this plan'}</td>
          </tr>
        </tbody>
      </table>
    </section>
  );
}
