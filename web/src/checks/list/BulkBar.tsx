import type { BulkAction } from '../api';

/** What can be done to the selected rows; a delete waits for its undo window (ChecksPage). */
export function BulkBar({ count, busy, onAction, onClear }: { count: number; busy: boolean; onAction: (action: BulkAction) => void; onClear: () => void }) {
  if (count === 0) return null;
  return (
    <div className="bulk-bar" role="region" aria-label="Bulk actions">
      <span aria-live="polite">{count === 1 ? '1 check selected' : `${count} checks selected`}</span>
      <button type="button" className="button" disabled={busy} onClick={() => onAction('pause')}>
        Pause
      </button>
      <button type="button" className="button" disabled={busy} onClick={() => onAction('resume')}>
        Resume
      </button>
      <button type="button" className="button danger" disabled={busy} onClick={() => onAction('delete')}>
        Delete
      </button>
      <button type="button" className="button ghost" onClick={onClear}>
        Clear selection
      </button>
    </div>
  );
}
