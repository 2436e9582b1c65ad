import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { Field } from '../ui/Field';
import { allows, explainError } from '../ui/permission';
import { useToast } from '../ui/toast';
import { useWorkspace } from '../workspace/context';
import { personName, useOverrideMutations, type Member } from './api';
import type { Span } from './Timeline';
import { instantOfLocal, localInput } from './zoned';

/**
 * "Take this shift": an override for the span chosen on the timeline, editable before it is
 * saved. An ADMIN may put anyone on call; a MEMBER only themselves (the API's rule), so the
 * person is fixed for them. Focus moves here when a span is chosen, so the keyboard flow goes on.
 */
export function TakeShift({ scheduleId, timezone, span, members, onDone }: { scheduleId: number; timezone: string; span: Span; members: readonly Member[]; onDone: () => void }) {
  const { me, role } = useWorkspace();
  const toast = useToast();
  const { create } = useOverrideMutations();
  const admin = allows(role, 'ADMIN');
  const self = me?.id ?? 0;
  const [userId, setUserId] = useState(self);
  const [startAt, setStart] = useState(() => localInput(Date.parse(span.startAt), timezone));
  const [endAt, setEnd] = useState(() => localInput(Date.parse(span.endAt), timezone));
  const [conditional, setConditional] = useState(span.replacedUserId !== null);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const first = useRef<HTMLSelectElement & HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), [span]);

  const fields = create.error instanceof ApiError ? create.error.fieldErrors() : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const start = instantOfLocal(startAt, timezone);
    const end = instantOfLocal(endAt, timezone);
    if (start === null || end === null) return setError('Give a start and an end.');
    setError(null);
    const replaced = conditional && span.replacedUserId !== null && span.replacedUserId !== userId ? span.replacedUserId : null;
    create.mutate(
      { scheduleId, overrideUserId: userId, startAt: start, endAt: end, replacedUserId: replaced, reason: reason.trim() === '' ? null : reason.trim() },
      {
        onSuccess: () => {
          toast({ title: `${personName(members, userId)} takes the shift` });
          onDone();
        },
        onError: (err) => setError(explainError(err, role)),
      },
    );
  };
  return (
    <form className="card take-shift" aria-labelledby="take-shift-title" onSubmit={submit}>
      <h2 id="take-shift-title">Take this shift</h2>
      <p className="field-hint">Times are in the schedule's time zone, {timezone}.</p>
      <div className="two-col">
        {admin ? (
          <Field label="Who is on call">
            {(aria) => (
              <select {...aria} ref={first} name="overrideUserId" value={userId} onChange={(e) => setUserId(Number(e.target.value))}>
                {members.map((m) => (
                  <option key={m.userId} value={m.userId}>
                    {m.name ?? m.email}
                    {m.userId === self ? ' (you)' : ''}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : (
          <p>
            <strong>You</strong> ({personName(members, self)}) will be on call.
          </p>
        )}
        <Field label="Starts" error={fields.startAt}>
          {(aria) => <input {...aria} ref={admin ? undefined : first} type="datetime-local" name="startAt" value={startAt} onChange={(e) => setStart(e.target.value)} required />}
        </Field>
        <Field label="Ends" error={fields.endAt}>
          {(aria) => <input {...aria} type="datetime-local" name="endAt" value={endAt} onChange={(e) => setEnd(e.target.value)} required />}
        </Field>
        <Field label="Reason (optional)" error={fields.reason}>
          {(aria) => <input {...aria} name="reason" maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />}
        </Field>
      </div>
      {span.replacedUserId !== null ? (
        <label className="check-row">
          <input type="checkbox" checked={conditional} onChange={(e) => setConditional(e.target.checked)} />
          Only while {personName(members, span.replacedUserId)} would be on call
        </label>
      ) : null}
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="button-row">
        <button type="submit" className="button primary" disabled={create.isPending}>
          Create override
        </button>
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
