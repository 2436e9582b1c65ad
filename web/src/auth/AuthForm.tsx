import { useState, type FormEvent, type ReactNode } from 'react';
import { ApiError } from '../api/client';
import { AuthError } from '../api/session';

export type Field = { name: string; label: string; type: string; autoComplete: string; required?: boolean; minLength?: number };

/** The sign-in and sign-up form: labelled fields, the API's message per field or for the form. */
export function AuthForm({
  title,
  fields,
  submitLabel,
  onSubmit,
  footer,
}: {
  title: string;
  fields: Field[];
  submitLabel: string;
  onSubmit: (values: Record<string, string>) => Promise<void>;
  footer: ReactNode;
}) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState<{ form: string; fields: Record<string, string> } | null>(null);
  const [pending, setPending] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setPending(true);
    setError(null);
    try {
      await onSubmit(values);
    } catch (err) {
      if (err instanceof ApiError) setError({ form: err.message, fields: err.fieldErrors() });
      else if (err instanceof AuthError) setError({ form: err.status === 400 || err.status === 401 ? 'Wrong e-mail or password.' : err.message, fields: {} });
      else setError({ form: 'Something went wrong. Try again.', fields: {} });
    } finally {
      setPending(false);
    }
  };
  return (
    <main className="auth">
      <form className="card auth-card" onSubmit={submit} noValidate={false}>
        <h1>{title}</h1>
        {fields.map((field) => {
          const message = error?.fields[field.name];
          return (
            <label key={field.name} className="field">
              <span>{field.label}</span>
              <input
                name={field.name}
                type={field.type}
                autoComplete={field.autoComplete}
                required={field.required ?? true}
                minLength={field.minLength}
                value={values[field.name] ?? ''}
                onChange={(e) => setValues({ ...values, [field.name]: e.target.value })}
                aria-invalid={message ? true : undefined}
                aria-describedby={message ? `${field.name}-error` : undefined}
              />
              {message ? (
                <span id={`${field.name}-error`} className="field-error">
                  {message}
                </span>
              ) : null}
            </label>
          );
        })}
        {error ? (
          <p className="form-error" role="alert">
            {error.form}
          </p>
        ) : null}
        <button type="submit" className="button primary" disabled={pending}>
          {submitLabel}
        </button>
        <p className="muted">{footer}</p>
      </form>
    </main>
  );
}
