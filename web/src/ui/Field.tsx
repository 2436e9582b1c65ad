import { useId, type ReactNode } from 'react';

export type FieldAria = { id: string; 'aria-invalid': true | undefined; 'aria-describedby': string | undefined };

/**
 * A labelled control with its hint and its error (the API's `details` message for this field)
 * tied to it by aria-describedby, so a screen reader reads both with the control.
 */
export function Field({ label, hint, error, children }: { label: string; hint?: ReactNode; error?: string | undefined; children: (aria: FieldAria) => ReactNode }) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {hint ? (
        <span id={hintId} className="field-hint">
          {hint}
        </span>
      ) : null}
      {error ? (
        <span id={errorId} className="field-error">
          {error}
        </span>
      ) : null}
    </div>
  );
}
