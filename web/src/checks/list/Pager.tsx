import type { Schemas } from '../../api/client';

type Page = Schemas['CheckPage'];

/**
 * Server-side pages. The whole list pages by number (the API counts it); a filtered or searched
 * list pages by the API's cursor, so only Next and Previous (the cursors already walked) exist.
 */
export function Pager({ data, hasPrevious, onNext, onPrevious }: { data: Page; hasPrevious: boolean; onNext: () => void; onPrevious: () => void }) {
  const counted = data.pageCount !== null && data.total !== null;
  const hasNext = counted ? data.page < (data.pageCount ?? 0) : data.nextCursor !== null;
  if (!hasNext && !hasPrevious) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="button" disabled={!hasPrevious} onClick={onPrevious}>
        Previous
      </button>
      <span>
        {counted ? `Page ${data.page} of ${Math.max(data.pageCount ?? 1, 1)} · ${data.total === 1 ? '1 check' : `${data.total ?? 0} checks`}` : `${data.itemCount} shown`}
      </span>
      <button type="button" className="button" disabled={!hasNext} onClick={onNext}>
        Next
      </button>
    </nav>
  );
}
