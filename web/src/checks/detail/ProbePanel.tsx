import { lazy, Suspense } from 'react';
import { Skeleton } from '../../ui/Skeleton';
import { Time } from '../../ui/time';
import { useOutboundStats, useProbeRuns, type CheckDetail } from '../api';

const LatencyChart = lazy(() => import('./LatencyChart'));

const STATS_WINDOW = '24h';
const percent = (value: number | null) => (value === null ? '—' : `${value.toFixed(2)} %`);
const ms = (value: number | null) => (value === null ? '—' : `${Math.round(value)} ms`);

/** An HTTP check's last 24 h: uptime, P95 and a latency chart per region, then its latest runs. */
export function ProbePanel({ check }: { check: CheckDetail }) {
  const stats = useOutboundStats(check.id, STATS_WINDOW, true);
  const runs = useProbeRuns(check.id, true);
  const items = (runs.data?.items ?? []).filter((r): r is NonNullable<typeof r> => r !== null);
  return (
    <section aria-labelledby="probe-title">
      <h2 id="probe-title">Probes (last 24 hours)</h2>
      {stats.data ? (
        <dl className="stats">
          <div>
            <dt>Uptime</dt>
            <dd>{percent(stats.data.uptimePercent)}</dd>
          </div>
          <div>
            <dt>P95 latency</dt>
            <dd>{ms(stats.data.p95LatencyMs)}</dd>
          </div>
          <div>
            <dt>Average latency</dt>
            <dd>{ms(stats.data.avgLatencyMs)}</dd>
          </div>
          <div>
            <dt>Runs (failed)</dt>
            <dd>
              {stats.data.runs} ({stats.data.failures})
            </dd>
          </div>
        </dl>
      ) : (
        <Skeleton lines={1} label="Loading probe statistics" />
      )}
      {runs.isPending ? (
        <Skeleton lines={5} label="Loading probe runs" />
      ) : items.length === 0 ? (
        <p className="muted">No probe has run yet: the first round starts within the check's interval.</p>
      ) : (
        <>
          <Suspense fallback={<Skeleton lines={5} label="Loading the chart" />}>
            <LatencyChart runs={items} label={`Latency per region over the last ${items.length} runs; P95 ${ms(stats.data?.p95LatencyMs ?? null)}`} />
          </Suspense>
          <details>
            <summary>Latest runs</summary>
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Started</th>
                    <th scope="col">Region</th>
                    <th scope="col">Result</th>
                    <th scope="col">Status code</th>
                    <th scope="col">Latency</th>
                  </tr>
                </thead>
                <tbody>
                  {items.slice(0, 20).map((run) => (
                    <tr key={run.id}>
                      <td>
                        <Time iso={run.startedAt} past />
                      </td>
                      <td>{run.region}</td>
                      <td>{run.ok ? 'OK' : `Failed${run.failureReason ? ` (${run.failureReason.toLowerCase().replace(/_/g, ' ')})` : ''}`}</td>
                      <td>{run.statusCode ?? '—'}</td>
                      <td>{run.latencyMs} ms</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </section>
  );
}
