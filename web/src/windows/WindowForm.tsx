import { useMemo, useState, type FormEvent } from 'react';
import { cronProblem } from '../../../core/maintenance/recurrence';
import { ApiError } from '../api/client';
import { Field } from '../ui/Field';
import { explainError } from '../ui/permission';
import { useToast } from '../ui/toast';
import { useWorkspace } from '../workspace/context';
import { useProjects } from '../workspace/queries';
import { instantOfLocal, isTimeZone, localInput } from '../schedules/zoned';
import { formatIn } from '../ui/time';
import { occurrencesOf, useWindowMutations } from './api';

const PREVIEW = 5;
const HOUR = 3_600_000;

/**
 * A new maintenance window: one-time, or repeating by a cron expression read in its zone. The
 * next occurrences are previewed as typed with the server's own recurrence rule, so what is shown
 * is what the processor will do.
 */
export function WindowForm({ workspaceId, onDone }: { workspaceId: number; onDone: () => void }) {
  const { role, projectId } = useWorkspace();
  const projects = useProjects(workspaceId);
  const toast = useToast();
  const { create } = useWindowMutations(workspaceId);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [timezone, setTimezone] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  const zone = isTimeZone(timezone) ? timezone : 'UTC';
  const [startAt, setStart] = useState(() => localInput(Math.ceil(Date.now() / HOUR) * HOUR, zone));
  const [endAt, setEnd] = useState(() => localInput(Math.ceil(Date.now() / HOUR) * HOUR + HOUR, zone));
  const [repeats, setRepeats] = useState(false);
  const [cron, setCron] = useState('0 2 * * 2');
  const [chosen, setChosen] = useState<number[] | null>(null);
  const [suppressAlerts, setSuppressAlerts] = useState(true);
  const [suppressIncidents, setSuppressIncidents] = useState(true);
  const [publish, setPublish] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const projectIds = chosen ?? (projectId !== null ? [projectId] : (projects.data?.map((p) => p.id) ?? []));
  const fields = create.error instanceof ApiError ? create.error.fieldErrors() : {};

  const start = instantOfLocal(startAt, zone);
  const end = instantOfLocal(endAt, zone);
  const preview = useMemo(() => {
    if (start === null || end === null) return { problem: 'Give a start and an end.' };
    if (Date.parse(end) <= Date.parse(start)) return { problem: 'The end must be after the start.' };
    if (!repeats) return { times: [{ startAt: Date.parse(start), endAt: Date.parse(end) }] };
    const problem = cronProblem(cron, zone);
    if (problem) return { problem: `Not a usable repeat: ${problem}.` };
    return { times: occurrencesOf({ startAt: start, endAt: end, recurringCron: cron, timezone: zone }, Date.parse(start), Number.POSITIVE_INFINITY, PREVIEW) };
  }, [start, end, repeats, cron, zone]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!isTimeZone(timezone)) return setError('The time zone must be an IANA name such as Europe/Berlin.');
    if (start === null || end === null) return setError('Give a start and an end.');
    if (projectIds.length === 0) return setError('Choose at least one project.');
    setError(null);
    create.mutate(
      {
        workspaceId,
        name,
        description: description.trim() === '' ? null : description,
        startAt: start,
        endAt: end,
        projectIds,
        suppressAlerts,
        suppressIncidents,
        autoPublishToStatusPage: publish,
        timezone,
        recurringCron: repeats ? cron : null,
      },
      {
        onSuccess: (window) => {
          toast({ title: `Created “${window.name}”` });
          onDone();
        },
        onError: (err) => setError(explainError(err, role)),
      },
    );
  };
  const toggleProject = (id: number, on: boolean) => setChosen(on ? [...projectIds, id] : projectIds.filter((p) => p !== id));

  return (
    <form className="card check-form window-form" aria-label="New maintenance window" onSubmit={submit}>
      <div className="two-col">
        <Field label="Name" error={fields.name}>
          {(aria) => <input {...aria} name="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={255} />}
        </Field>
        <Field label="Time zone" hint="IANA name; the times and the repeat are read in it." error={fields.timezone}>
          {(aria) => <input {...aria} name="timezone" value={timezone} onChange={(e) => setTimezone(e.target.value)} required />}
        </Field>
        <Field label="Starts" error={fields.startAt}>
          {(aria) => <input {...aria} type="datetime-local" name="startAt" value={startAt} onChange={(e) => setStart(e.target.value)} required />}
        </Field>
        <Field label="Ends" hint={repeats ? 'Each occurrence lasts as long as this first one.' : undefined} error={fields.endAt}>
          {(aria) => <input {...aria} type="datetime-local" name="endAt" value={endAt} onChange={(e) => setEnd(e.target.value)} required />}
        </Field>
      </div>
      <Field label="Description (optional)" error={fields.description}>
        {(aria) => <textarea {...aria} name="description" maxLength={2000} value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      <fieldset>
        <legend>Repeat</legend>
        <label className="check-row">
          <input type="checkbox" name="repeats" checked={repeats} onChange={(e) => setRepeats(e.target.checked)} />
          Repeats on a schedule
        </label>
        {repeats ? (
          <Field label="Cron expression" hint="Five fields (minute hour day month weekday) or @daily, @weekly…; 0 2 * * 2 is Tuesdays at 02:00." error={fields.recurringCron}>
            {(aria) => <input {...aria} name="recurringCron" className="mono" value={cron} onChange={(e) => setCron(e.target.value)} />}
          </Field>
        ) : null}
        <div className="cron-preview window-preview" aria-live="polite">
          {'problem' in preview ? (
            <p className="field-hint">{preview.problem}</p>
          ) : (
            <>
              <p className="field-hint">{repeats ? `Next ${preview.times.length} occurrences (${zone}):` : `When (${zone}):`}</p>
              <ol className="due-times">
                {preview.times.map((o) => (
                  <li key={o.startAt} data-occurrence={new Date(o.startAt).toISOString()}>
                    {formatIn(o.startAt, zone)} to {formatIn(o.endAt, zone)}
                  </li>
                ))}
              </ol>
            </>
          )}
        </div>
      </fieldset>
      <fieldset>
        <legend>Projects</legend>
        {projects.data?.map((p) => (
          <label key={p.id} className="check-row">
            <input type="checkbox" name="projectIds" value={p.id} checked={projectIds.includes(p.id)} onChange={(e) => toggleProject(p.id, e.target.checked)} />
            {p.name}
          </label>
        ))}
        {fields.projectIds ? <p className="field-error">{fields.projectIds}</p> : null}
      </fieldset>
      <fieldset>
        <legend>During the window</legend>
        <label className="check-row">
          <input type="checkbox" name="suppressAlerts" checked={suppressAlerts} onChange={(e) => setSuppressAlerts(e.target.checked)} />
          Send no alerts
        </label>
        <label className="check-row">
          <input type="checkbox" name="suppressIncidents" checked={suppressIncidents} onChange={(e) => setSuppressIncidents(e.target.checked)} />
          Open no incidents
        </label>
        <label className="check-row">
          <input type="checkbox" name="autoPublish" checked={publish} onChange={(e) => setPublish(e.target.checked)} />
          Announce it on status pages
        </label>
      </fieldset>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="button-row">
        <button type="submit" className="button primary" disabled={create.isPending}>
          Create window
        </button>
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
