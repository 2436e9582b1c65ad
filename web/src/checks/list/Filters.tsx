import { useEffect, useRef, useState } from 'react';
import { KIND_OPTIONS } from '../kinds';
import { STATUS_OPTIONS } from '../StatusBadge';
import type { ListParams } from './useListParams';

const SEARCH_DELAY_MS = 250;

/** Search by name (`/` focuses it), status and kind; the project comes from the switcher above. */
export function Filters({ params, onChange }: { params: ListParams; onChange: (change: Partial<ListParams>) => void }) {
  const search = useRef<HTMLInputElement>(null);
  const [text, setText] = useState(params.q);
  useEffect(() => setText(params.q), [params.q]);
  // Typing asks the server once the typist pauses, not per key.
  useEffect(() => {
    if (text.trim() === params.q) return;
    const timer = window.setTimeout(() => onChange({ q: text.trim() }), SEARCH_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [text, params.q, onChange]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      const typing = target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || target.isContentEditable);
      if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        search.current?.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return (
    <div className="filters" role="search" aria-label="Filter checks">
      <label className="field">
        <span>
          Search by name <kbd aria-hidden="true">/</kbd>
        </span>
        <input ref={search} name="q" type="search" value={text} maxLength={100} onChange={(e) => setText(e.target.value)} placeholder="e.g. backup" />
      </label>
      <label className="field">
        <span>Status</span>
        <select name="status" value={params.status ?? ''} onChange={(e) => onChange({ status: STATUS_OPTIONS.find((o) => o.value === e.target.value)?.value ?? null })}>
          <option value="">Any status</option>
          {STATUS_OPTIONS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Kind</span>
        <select name="kind" value={params.checkType ?? ''} onChange={(e) => onChange({ checkType: KIND_OPTIONS.find((o) => o.value === e.target.value)?.value ?? null })}>
          <option value="">Any kind</option>
          {KIND_OPTIONS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
