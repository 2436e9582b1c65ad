import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { api, ApiError, unwrap } from '../api/client';
import { forgetSession, signIn } from '../api/session';
import { Field } from '../ui/Field';
import { useToast } from '../ui/toast';
import { useAccess } from '../ui/permission';

/**
 * Your own account. A password change ends every session (the API's rule), this one included,
 * so the dashboard signs straight back in with the new password; "sign out everywhere" ends them
 * all and returns here to the sign-in page.
 */
export function ProfileSection() {
  const { me } = useAccess();
  const toast = useToast();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const fields = error instanceof ApiError ? error.fieldErrors() : {};
  const change = async (event: FormEvent) => {
    event.preventDefault();
    if (!me) return;
    setBusy(true);
    setError(null);
    try {
      await unwrap(api.POST('/auth/password', { body: { currentPassword: current, newPassword: next } }));
      await signIn(me.email, next);
      setCurrent('');
      setNext('');
      toast({ title: 'Password changed', description: 'Every other session was signed out.' });
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusy(false);
    }
  };
  const everywhere = async () => {
    try {
      await api.POST('/auth/logout', { body: { everywhere: true } });
    } finally {
      forgetSession();
      queryClient.clear();
      toast({ title: 'Signed out everywhere' });
      navigate('/signin', { replace: true });
    }
  };
  return (
    <section className="card section" aria-labelledby="profile-title">
      <h2 id="profile-title">Your profile</h2>
      <p>
        Signed in as <strong>{me?.email}</strong>
        {me?.name ? ` (${me.name})` : ''}.
      </p>
      <form className="inline-form" aria-label="Change password" onSubmit={(e) => void change(e)}>
        <Field label="Current password" error={fields.currentPassword}>
          {(aria) => (
            <input {...aria} type="password" name="currentPassword" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
          )}
        </Field>
        <Field label="New password" hint="At least 8 characters." error={fields.newPassword}>
          {(aria) => (
            <input {...aria} type="password" name="newPassword" autoComplete="new-password" required minLength={8} value={next} onChange={(e) => setNext(e.target.value)} />
          )}
        </Field>
        <button type="submit" className="button primary" disabled={busy}>
          Change password
        </button>
      </form>
      {error ? (
        <p className="form-error" role="alert">
          {error.message}
        </p>
      ) : null}
      <div className="button-row section-end">
        <button type="button" className="button danger" onClick={() => void everywhere()}>
          Sign out everywhere
        </button>
        <span className="muted">Ends every session of yours, on every device, this one included.</span>
      </div>
    </section>
  );
}
