import { useEffect, useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { explainError, useAccess } from '../ui/permission';
import { Field } from '../ui/Field';
import { useSlugAvailable, type PageFields, type StatusPage } from './api';

type Visibility = StatusPage['visibility'];
const VISIBILITY: { value: Visibility; label: string; hint: string }[] = [
  { value: 'PUBLIC', label: 'Public', hint: 'Anyone with the link' },
  { value: 'PASSWORD_PROTECTED', label: 'Password', hint: 'Visitors enter a password' },
  { value: 'PRIVATE', label: 'Private', hint: 'Members of this workspace only' },
];
const COLOUR = /^#[0-9a-fA-F]{6}$/;

/** The slug asked about once typing pauses for 300 ms, so every keystroke is not a request. */
function useSettled(value: string, ms = 300): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

function SlugStatus({ slug, current }: { slug: string; current: string | undefined }) {
  const settled = useSettled(slug);
  const check = useSlugAvailable(settled, current);
  let text = '';
  if (slug === '') text = '';
  else if (slug === current) text = 'This page’s current address.';
  else if (settled !== slug || check.isFetching) text = 'Checking…';
  else if (check.data === true) text = `“${slug}” is available.`;
  else if (check.data === false) text = `“${slug}” is taken, reserved or not a valid slug (lower-case letters, digits and hyphens).`;
  return (
    <span className="slug-status" role="status" data-available={check.data === undefined || settled !== slug || slug === current ? undefined : String(check.data)}>
      {text}
    </span>
  );
}

/**
 * The page's own settings, for a new page and an existing one: name, slug (availability checked
 * as typed), visibility with its password, colours and the header markup (sanitised by the server
 * on save). An empty password on an already protected page keeps the old one.
 */
export function PageForm({
  page,
  submitLabel,
  busy,
  error,
  onSubmit,
}: {
  page?: StatusPage;
  submitLabel: string;
  busy: boolean;
  error: Error | null;
  onSubmit: (fields: PageFields & { name: string; slug: string }) => void;
}) {
  const [name, setName] = useState(page?.name ?? '');
  const [slug, setSlug] = useState(page?.slug ?? '');
  const [visibility, setVisibility] = useState<Visibility>(page?.visibility ?? 'PUBLIC');
  const [password, setPassword] = useState('');
  const [primaryColor, setPrimary] = useState(page?.primaryColor ?? '');
  const [backgroundColor, setBackground] = useState(page?.backgroundColor ?? '');
  const [headerHtml, setHeader] = useState(page?.headerHtml ?? '');
  const { role } = useAccess();
  const fields = error instanceof ApiError ? error.fieldErrors() : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit({
      name,
      slug,
      visibility,
      ...(password !== '' ? { password } : {}),
      primaryColor: COLOUR.test(primaryColor) ? primaryColor : null,
      backgroundColor: COLOUR.test(backgroundColor) ? backgroundColor : null,
      headerHtml: headerHtml.trim() === '' ? null : headerHtml,
    });
  };
  return (
    <form className="check-form" aria-label={page ? 'Page settings' : 'New status page'} onSubmit={submit}>
      <div className="two-col">
        <Field label="Name" error={fields.name}>
          {(aria) => <input {...aria} name="name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Slug" hint={<SlugStatus slug={slug} current={page?.slug} />} error={fields.slug}>
          {(aria) => <input {...aria} name="slug" required value={slug} onChange={(e) => setSlug(e.target.value.toLowerCase())} />}
        </Field>
      </div>
      <fieldset className="radio-row">
        <legend>Visibility</legend>
        {VISIBILITY.map((v) => (
          <label key={v.value}>
            <input type="radio" name="visibility" value={v.value} checked={visibility === v.value} onChange={() => setVisibility(v.value)} /> {v.label}{' '}
            <span className="muted">({v.hint})</span>
          </label>
        ))}
      </fieldset>
      {visibility === 'PASSWORD_PROTECTED' ? (
        <Field label="Password" hint={page?.hasPassword ? 'Leave empty to keep the current password.' : 'Visitors need it to see the page.'} error={fields.password}>
          {(aria) => (
            <input
              {...aria}
              name="password"
              type="password"
              autoComplete="new-password"
              required={!page?.hasPassword}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
      ) : null}
      <div className="two-col">
        <Field label="Primary colour" hint="#rrggbb, or empty for the default" error={fields.primaryColor}>
          {(aria) => <input {...aria} name="primaryColor" pattern="#[0-9a-fA-F]{6}" value={primaryColor} onChange={(e) => setPrimary(e.target.value)} />}
        </Field>
        <Field label="Background colour" hint="#rrggbb, or empty for the default" error={fields.backgroundColor}>
          {(aria) => <input {...aria} name="backgroundColor" pattern="#[0-9a-fA-F]{6}" value={backgroundColor} onChange={(e) => setBackground(e.target.value)} />}
        </Field>
      </div>
      <Field label="Header" hint="HTML shown above the components; cleaned by the same allowlist as announcements." error={fields.headerHtml}>
        {(aria) => <textarea {...aria} name="headerHtml" rows={3} value={headerHtml} onChange={(e) => setHeader(e.target.value)} />}
      </Field>
      {error ? (
        <p className="form-error" role="alert">
          {explainError(error, role)}
        </p>
      ) : null}
      <div className="button-row">
        <button type="submit" className="button primary" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
