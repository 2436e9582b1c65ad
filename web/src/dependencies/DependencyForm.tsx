import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { explainError } from '../ui/permission';
import { Field } from '../ui/Field';
import { CATEGORIES, CATEGORY_LABEL, type Category, type Dependency } from './api';

export type DependencyValues = { name: string; description: string | null; category: Category | null; url: string | null };

/** Name, description, category and URL: the create form and the edit form are this one. */
export function DependencyForm({
  title,
  initial,
  submitLabel,
  pending,
  error,
  onSubmit,
  children,
}: {
  title: string;
  initial: Dependency | null;
  submitLabel: string;
  pending: boolean;
  error: Error | null;
  onSubmit: (values: DependencyValues) => void;
  children?: React.ReactNode;
}) {
  const [name, setName] = useState(initial?.name ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [category, setCategory] = useState<Category | ''>(initial?.category ?? '');
  const [url, setUrl] = useState(initial?.url ?? '');
  const errors = error instanceof ApiError ? error.fieldErrors() : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit({ name, description: description.trim() === '' ? null : description, category: category === '' ? null : category, url: url.trim() === '' ? null : url });
  };
  return (
    <form className="card stack-form dependency-form" onSubmit={submit} aria-label={title}>
      <h2>{title}</h2>
      <Field label="Name" error={errors.name}>
        {(aria) => <input {...aria} name="name" required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Description" error={errors.description}>
        {(aria) => <input {...aria} name="description" maxLength={255} value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      <Field label="Category" error={errors.category}>
        {(aria) => (
          <select {...aria} name="category" value={category} onChange={(e) => setCategory(e.target.value as Category | '')}>
            <option value="">None</option>
            {CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {CATEGORY_LABEL[c]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="URL" hint="Its status page or console, for whoever is on call" error={errors.url}>
        {(aria) => <input {...aria} name="url" type="url" maxLength={2048} value={url} onChange={(e) => setUrl(e.target.value)} />}
      </Field>
      {error ? (
        <p className="form-error" role="alert">
          {explainError(error)}
        </p>
      ) : null}
      <div className="button-row">
        <button type="submit" className="button primary" disabled={pending}>
          {submitLabel}
        </button>
        {children}
      </div>
    </form>
  );
}
