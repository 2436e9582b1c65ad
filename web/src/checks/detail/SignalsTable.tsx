import { Skeleton } from '../../ui/Skeleton';
import { Time } from '../../ui/time';
import { useSignals, type CheckDetail } from '../api';

const TYPE_LABEL: Record<string, string> = {
  SUCCESS: 'Success',
  FAIL: 'Failed',
  START: 'Started',
  LOG: 'Log',
  SUSPECT: 'Suspect',
  DEPLOYMENT: 'Deployment',
  TOO_FREQUENT: 'Too frequent',
};

const duration = (ms: number | null): string => (ms === null ? '—' : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

const exitCodeOf = (details: Record<string, unknown> | null): string => {
  const code = details?.exitCode;
  return typeof code === 'number' ? String(code) : '—';
};

const logOf = (payload: unknown): string | null => {
  if (payload === null || payload === undefined) return null;
  return typeof payload === 'string' ? payload : JSON.stringify(payload, null, 2);
};

/** The job's recent signals and runs: when, what, how long, its exit code and log. */
export function SignalsTable({ check }: { check: CheckDetail }) {
  const signals = useSignals(check.token);
  return (
    <section aria-labelledby="signals-title">
      <h2 id="signals-title">Recent signals and runs</h2>
      {signals.isPending ? (
        <Skeleton lines={4} label="Loading signals" />
      ) : signals.isError ? (
        <p className="form-error">{signals.error.message}</p>
      ) : signals.data.items.length === 0 ? (
        <p className="muted">No ping yet. Send one with the curl line above, or let the job run.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">Signal</th>
                <th scope="col">Duration</th>
                <th scope="col">Exit code</th>
                <th scope="col">Log</th>
              </tr>
            </thead>
            <tbody>
              {signals.data.items.map((s) => {
                const log = logOf(s.payload);
                return (
                  <tr key={s.id}>
                    <td>
                      <Time iso={s.receivedAt} past />
                    </td>
                    <td>{TYPE_LABEL[s.type] ?? s.type}</td>
                    <td>{duration(s.durationMs)}</td>
                    <td>{exitCodeOf(s.details)}</td>
                    <td>
                      {log ? (
                        <details>
                          <summary>Show log</summary>
                          <pre>{log}</pre>
                        </details>
                      ) : (
                        '—'
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
