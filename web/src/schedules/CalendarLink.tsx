import { useState } from 'react';
import { CopyButton } from '../ui/CopyButton';
import { explainError } from '../ui/permission';
import { useToast } from '../ui/toast';
import { useWorkspace } from '../workspace/context';
import { useCalendarSecret } from './api';

/**
 * The secret calendar URL (ADMIN): made or rotated here and shown once, since the server keeps
 * only its hash. Rotating or turning it off stops the old URL at once, so both ask first.
 */
export function CalendarLink({ scheduleId }: { scheduleId: number }) {
  const { role } = useWorkspace();
  const toast = useToast();
  const { rotate, revoke } = useCalendarSecret(scheduleId);
  const [url, setUrl] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<'rotate' | 'revoke' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const fail = (err: Error) => setError(explainError(err, role));
  const make = () =>
    rotate.mutate(undefined, {
      onSuccess: (secret) => {
        setUrl(new URL(secret.url, window.location.origin).toString());
        setConfirming(null);
        setError(null);
        toast({ title: 'Calendar link ready' });
      },
      onError: fail,
    });
  const off = () =>
    revoke.mutate(undefined, {
      onSuccess: () => {
        setUrl(null);
        setConfirming(null);
        setError(null);
        toast({ title: 'Calendar link turned off' });
      },
      onError: fail,
    });
  return (
    <section aria-labelledby="calendar-title">
      <h2 id="calendar-title">Calendar link</h2>
      <p className="field-hint">A private iCalendar URL of the final schedule, for Google Calendar, Outlook or Apple Calendar. Anyone with it can read the schedule.</p>
      {url ? (
        <div className="copy-row">
          <input readOnly id="calendar-url" aria-label="Calendar URL (shown once)" value={url} />
          <CopyButton text={url} label="Copy the calendar URL" />
        </div>
      ) : null}
      {confirming ? (
        <div className="confirm" role="group" aria-label="Confirm">
          <p>{confirming === 'rotate' ? 'Make a new link? The current link, if any, stops working at once.' : 'Turn the link off? Calendars using it stop updating.'}</p>
          <div className="button-row">
            <button type="button" className="button primary" onClick={confirming === 'rotate' ? make : off}>
              {confirming === 'rotate' ? 'Make a new link' : 'Turn it off'}
            </button>
            <button type="button" className="button" onClick={() => setConfirming(null)}>
              Keep the current link
            </button>
          </div>
        </div>
      ) : (
        <div className="button-row">
          <button type="button" className="button" onClick={() => setConfirming('rotate')}>
            Create or rotate the link
          </button>
          <button type="button" className="button danger" onClick={() => setConfirming('revoke')}>
            Turn the link off
          </button>
        </div>
      )}
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
