import { CopyButton } from '../../ui/CopyButton';
import type { CheckDetail } from '../api';

/** What a heartbeat job sends: the ping URL and ready-to-paste lines for curl, crontab and vigil-run. */
export function PingPanel({ check }: { check: CheckDetail }) {
  const url = check.pingUrl;
  const schedule = check.schedule ?? cronFor(check.intervalSeconds);
  const snippets = [
    { title: 'curl', text: `curl -fsS -m 10 --retry 5 ${url}` },
    { title: 'crontab', text: `${schedule} /path/to/job.sh && curl -fsS -m 10 --retry 5 ${url}` },
    { title: 'vigil-run', text: `${schedule} npx vigil-run --url ${url} -- /path/to/job.sh` },
  ];
  return (
    <section aria-labelledby="ping-title" className="card">
      <h2 id="ping-title">Ping URL</h2>
      <div className="copy-row">
        <label htmlFor="ping-url" className="visually-hidden">
          Ping URL
        </label>
        <input id="ping-url" className="mono" readOnly value={url} onFocus={(e) => e.target.select()} />
        <CopyButton text={url} label="Copy the ping URL" />
      </div>
      <p className="field-hint">
        Append <code>/start</code> when a run begins, <code>/fail</code> or an exit code (<code>/1</code>) when it fails.
      </p>
      {snippets.map((s) => (
        <div key={s.title} className="snippet">
          <h3>{s.title}</h3>
          <div className="copy-row">
            <pre>
              <code>{s.text}</code>
            </pre>
            <CopyButton text={s.text} label={`Copy the ${s.title} line`} />
          </div>
        </div>
      ))}
    </section>
  );
}

/** A crontab line for an interval check: the closest every-N-minutes or hourly expression. */
function cronFor(intervalSeconds: number | null): string {
  const minutes = Math.max(1, Math.round((intervalSeconds ?? 3600) / 60));
  if (minutes >= 60) return '0 * * * *';
  return minutes === 1 ? '* * * * *' : `*/${minutes} * * * *`;
}
