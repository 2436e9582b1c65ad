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
  latencies: Map<number, number[]>;
  selected: Set<number>;
  onSelect: (ids: number[], on: boolean) => void;
};

/** One page of checks; the first column selects rows for the bulk actions. */
export function ChecksTable({ checks, projectNames, latencies, selected, onSelect }: Props) {
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
                onChange={(e) => onSelect(
                  checks.map((c) => c.id),
                  e.target.checked,
                )}
              />
            </th>
            <th scope="col">Status</th>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col" className="wide-only">Project</th>
            <th scope="col">Last ping or probe</th>
            <th scope="col" className="wide-only">Next due</th>
            <th scope="col" className="wide-only">Latency</th>
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
                <Time iso={check.lastPingAt} past />
              </td>
              <td className="wide-only">{check.paused ? 'paused' : <Time iso={check.nextDueAt} never="not scheduled" />}</td>
              <td className="wide-only">{check.checkType === 'HTTP' ? <Sparkline values={latencies.get(check.id)} /> : null}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
