import { useMemo } from 'react';
import { occurrencesOf, type Deployment, type MaintenanceWindow } from './api';

type Entry = { key: string; kind: 'window' | 'deployment'; label: string; at: number; end: number; state: string };

const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const monthName = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric' });

/**
 * A month of this browser's days (Monday first) with every window occurrence and deployment on
 * the days it touches. Days are the platform's local days (Date); a window's occurrences come
 * from its own zone and cron by the server's rule.
 */
export function WindowCalendar({ year, month, windows, deployments }: { year: number; month: number; windows: readonly MaintenanceWindow[]; deployments: readonly Deployment[] }) {
  const weeks = useMemo(() => {
    const first = new Date(year, month, 1);
    const lead = (first.getDay() + 6) % 7;
    const days = Array.from({ length: 42 }, (_, i) => new Date(year, month, 1 - lead + i));
    const from = days[0]?.getTime() ?? 0;
    const to = new Date(year, month, 1 - lead + 42).getTime();
    const entries: Entry[] = [];
    for (const w of windows) {
      const stop = Date.parse(w.cancelledAt ?? w.completedAt ?? '') || Number.POSITIVE_INFINITY;
      for (const o of occurrencesOf(w, from, to, 62, stop))
        entries.push({ key: `w${w.id}-${o.startAt}`, kind: 'window', label: w.name, at: o.startAt, end: o.endAt, state: w.state });
    }
    for (const d of deployments) {
      const at = Date.parse(d.startedAt);
      if (at >= from && at < to)
        entries.push({
          key: `d${d.id}`,
          kind: 'deployment',
          label: [d.name ?? 'Deployment', d.version].filter(Boolean).join(' '),
          at,
          end: Date.parse(d.endedAt ?? '') || at + 1,
          state: d.status,
        });
    }
    return Array.from({ length: 6 }, (_, w) =>
      days.slice(w * 7, w * 7 + 7).map((day) => {
        const start = day.getTime();
        const end = new Date(day.getFullYear(), day.getMonth(), day.getDate() + 1).getTime();
        return { day, items: entries.filter((e) => e.at < end && Math.max(e.end, e.at + 1) > start).sort((a, b) => a.at - b.at) };
      }),
    );
  }, [year, month, windows, deployments]);
  return (
    <div className="table-wrap">
      <table className="window-calendar">
        <caption>{monthName.format(new Date(year, month, 1))}</caption>
        <thead>
          <tr>
            {DAY_NAMES.map((d) => (
              <th key={d} scope="col">
                {d}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {weeks.map((week) => (
            <tr key={week[0]?.day.toISOString()}>
              {week.map(({ day, items }) => (
                <td
                  key={day.toISOString()}
                  className={day.getMonth() === month ? '' : 'other-month'}
                  data-date={`${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`}
                >
                  <span className="day-number">{day.getDate()}</span>
                  <ul>
                    {items.map((e) => (
                      <li key={e.key} className={`cal-${e.kind}`} data-kind={e.kind} data-state={e.state}>
                        {e.kind === 'window' ? 'Window' : 'Deploy'}: {e.label} <span className="muted">{time.format(e.at)}</span>
                      </li>
                    ))}
                  </ul>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
