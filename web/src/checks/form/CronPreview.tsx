import { useMemo } from 'react';
import { nextOccurrence, scheduleProblem } from '../../../../core/checks/cron';

const PREVIEW_COUNT = 5;

/**
 * The next five due times of a cron schedule in its zone, as typed. It runs the server's own
 * cron module (core/checks/cron.ts, cron-parser), so the preview and the API agree on what is
 * valid and when the job is due.
 */
export function CronPreview({ schedule, timezone, id }: { schedule: string; timezone: string; id: string }) {
  const preview = useMemo(() => {
    if (schedule.trim() === '') return { problem: 'Type a schedule, e.g. 30 2 * * * or @daily.' };
    const problem = scheduleProblem(schedule, timezone);
    if (problem) return { problem: `Not a usable schedule: ${problem}.` };
    const times: Date[] = [];
    let after = new Date();
    while (times.length < PREVIEW_COUNT) {
      const next = nextOccurrence(schedule, timezone, after);
      if (!next) break;
      times.push(next);
      after = next;
    }
    return { times };
  }, [schedule, timezone]);
  const inZone = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: timezone.trim() === '' ? 'UTC' : safeZone(timezone) });
  return (
    <div id={id} className="cron-preview" aria-live="polite">
      {'problem' in preview ? (
        <p className="field-hint">{preview.problem}</p>
      ) : (
        <>
          <p className="field-hint">
            Next {preview.times.length} due times ({timezone}):
          </p>
          <ol className="due-times">
            {preview.times.map((t) => (
              <li key={t.getTime()}>
                <time dateTime={t.toISOString()}>{inZone.format(t)}</time>
              </li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}

function safeZone(zone: string): string {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: zone });
    return zone;
  } catch {
    return 'UTC';
  }
}
