import { useEffect, useRef } from 'react';
import { Link } from 'react-router-dom';
import { Time } from '../../ui/time';
import type { Check } from '../api';
import { KIND_LABEL } from '../kinds';
import { StatusBadge } from '../StatusBadge';
import { Sparkline } from './Sparkline';

type Props = {
  checks: Check[];
  projectNames: Map<number, string>;
  /** HTTP rows' latency line and last probe time (GET /checks/sparklines): the check view has no probe time. */
  probes: Map<number, { latencyMs: number[]; lastProbeAt: string | null }>;
  selected: Set<number>;
  onSelect: (ids: number[], on: boolean) => void;
};

/** One page of checks; the first column selects rows for the bulk actions. */
export function ChecksTable({ checks, projectNames, probes, selected, onSelect }: Props) {
  const all = checks.length > 0 && checks.every((c) => selected.has(c.id));
  const some = !all && checks.some((c) => selected.has(c.id));
  const selectAll = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (selectAll.current) selectAll.current.indeterminate = some;
  }, [some]);
  return (
    <div className="table-wrap">
      <table className="checks-table">
        <caption className="visually-hidden">Checks</caption>
        <thead>
          <tr>
            <th scope="col" className="select-col">
              <input
                ref={selectAll}
                type="checkbox"
                aria-label="Select all checks on this page"
                checked={all}
                onChange={(e) =>
                  onSelect(
                    checks.map((c) => c.id),
                    e.target.checked,
                  )
                }
              />
            </th>
            <th scope="col">Status</th>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col" className="wide-only">
              Project
            </th>
            <th scope="col">Last ping or probe</th>
            <th scope="col" className="wide-only">
              Next due
            </th>
            <th scope="col" className="wide-only">
              Latency
            </th>
          </tr>
        </thead>
        <tbody>
          {checks.map((check) => (
            <tr key={check.id} data-check-id={check.id} aria-selected={selected.has(check.id)}>
              <td className="select-col">
                <input type="checkbox" aria-label={`Select ${check.name}`} checked={selected.has(check.id)} onChange={(e) => onSelect([check.id], e.target.checked)} />
              </td>
              <td>
                <StatusBadge status={check.status} />
              </td>
              <td>
                <Link to={`/checks/${check.id}`}>{check.name}</Link>
              </td>
              <td>{KIND_LABEL[check.checkType]}</td>
              <td className="wide-only">{check.projectId === null ? '—' : (projectNames.get(check.projectId) ?? '—')}</td>
              <td>
                <Time iso={check.checkType === 'HTTP' ? (probes.get(check.id)?.lastProbeAt ?? null) : check.lastPingAt} past />
              </td>
              <td className="wide-only">
                {check.paused ? 'paused' : check.checkType === 'HTTP' ? <ProbeRate seconds={check.intervalSeconds} /> : <Time iso={check.nextDueAt} never="not scheduled" />}
              </td>
              <td className="wide-only">{check.checkType === 'HTTP' ? <Sparkline values={probes.get(check.id)?.latencyMs} /> : null}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * An HTTP check is probed at a fixed rate from each region, not due at one instant the API
 * records (nextDueAt is for heartbeats): the rate is what is known, so that is what is said.
 */
function ProbeRate({ seconds }: { seconds: number | null }) {
  if (seconds === null) return <span aria-label="not scheduled">—</span>;
  const every = seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
  return <span title="Probed at this rate from each region">every {every}</span>;
}
