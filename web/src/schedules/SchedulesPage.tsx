import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { ApiError } from '../api/client';
import { EmptyState } from '../ui/EmptyState';
import { Field } from '../ui/Field';
import { allows, explainError } from '../ui/permission';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { useWorkspace } from '../workspace/context';
import { useCreateSchedule, useOnCallNow, useSchedules, type Schedule } from './api';
import { isTimeZone } from './zoned';

/** The workspace's on-call schedules with who is on call on each now; an ADMIN creates one here. */
export function SchedulesPage() {
  const { workspaceId, role } = useWorkspace();
  const [creating, setCreating] = useState(false);
  return (
    <>
      <div className="page-head">
        <h1>On-call schedules</h1>
        {allows(role, 'ADMIN') && !creating ? (
          <button type="button" className="button primary" onClick={() => setCreating(true)}>
            New schedule
          </button>
        ) : null}
      </div>
      {creating && workspaceId !== null ? <NewSchedule workspaceId={workspaceId} onCancel={() => setCreating(false)} /> : null}
      {workspaceId === null ? <Skeleton label="Loading schedules" lines={4} /> : <ScheduleList workspaceId={workspaceId} />}
    </>
  );
}

function ScheduleList({ workspaceId }: { workspaceId: number }) {
  const list = useSchedules(workspaceId);
  if (list.isPending) return <Skeleton label="Loading schedules" lines={4} />;
  if (list.isError)
    return (
      <p className="form-error" role="alert">
        Schedules could not be loaded: {list.error.message}
      </p>
    );
  if (list.data.items.length === 0)
    return (
      <EmptyState title="No schedules yet">A schedule says who is on call, in layers of rotations, with overrides for swaps. Escalation policies page whoever it names.</EmptyState>
    );
  return (
    <div className="table-wrap">
      <table className="schedules-table">
        <caption className="visually-hidden">On-call schedules</caption>
        <thead>
          <tr>
            <th scope="col">Schedule</th>
            <th scope="col">Time zone</th>
            <th scope="col">Layers</th>
            <th scope="col">On call now</th>
          </tr>
        </thead>
        <tbody>
          {list.data.items.map((s) => (
            <tr key={s.id} data-schedule={s.id}>
              <td>
                <Link to={`/schedules/${s.id}`}>{s.name}</Link>
              </td>
              <td>{s.timezone}</td>
              <td>{s.rotations.length}</td>
              <td>
                <OnCallCell schedule={s} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function OnCallCell({ schedule }: { schedule: Schedule }) {
  const now = useOnCallNow(schedule.id);
  if (!now.data) return <span className="muted">…</span>;
  return now.data.user ? <>{now.data.user.name ?? now.data.user.email}</> : <span className="coverage-gap">Nobody</span>;
}

function NewSchedule({ workspaceId, onCancel }: { workspaceId: number; onCancel: () => void }) {
  const { role } = useWorkspace();
  const toast = useToast();
  const navigate = useNavigate();
  const create = useCreateSchedule();
  const [name, setName] = useState('');
  const [timezone, setTimezone] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  const [error, setError] = useState<string | null>(null);
  const fields = create.error instanceof ApiError ? create.error.fieldErrors() : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!isTimeZone(timezone)) return setError('The time zone must be an IANA name such as Europe/Berlin.');
    setError(null);
    create.mutate(
      { workspaceId, name, timezone, handoffNotificationMinutes: 15, enabled: true, rotations: [] },
      {
        onSuccess: (schedule) => {
          toast({ title: `Created “${schedule.name}”` });
          navigate(`/schedules/${schedule.id}`);
        },
        onError: (err) => setError(explainError(err, role)),
      },
    );
  };
  return (
    <form className="card check-form" aria-label="New schedule" onSubmit={submit}>
      <Field label="Name" error={fields.name}>
        {(aria) => <input {...aria} name="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={255} autoFocus />}
      </Field>
      <Field label="Time zone" hint="IANA name, e.g. Europe/Berlin: handoffs happen at its wall-clock times." error={fields.timezone}>
        {(aria) => <input {...aria} name="timezone" value={timezone} onChange={(e) => setTimezone(e.target.value)} required />}
      </Field>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="button-row">
        <button type="submit" className="button primary" disabled={create.isPending}>
          Create schedule
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
