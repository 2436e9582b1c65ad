import { useState } from 'react';
import { useToast } from '../../ui/toast';
import { useBulk, type BulkAction } from '../api';

/** How long a bulk delete waits for Undo before it is sent (nothing is deleted until then). */
export const UNDO_MS = 6000;
const BULK_LIMIT = 100;
const PAST: Record<BulkAction, string> = { pause: 'Paused', resume: 'Resumed', delete: 'Deleted' };

const plural = (n: number) => (n === 1 ? '1 check' : `${n} checks`);

/**
 * Pause, resume and delete for the selected rows through `POST /checks/bulk` (100 ids a request).
 * A delete first hides the rows and offers Undo for UNDO_MS; only then is it sent.
 */
export function useBulkActions(workspaceId: number, clearSelection: () => void) {
  const bulk = useBulk();
  const toast = useToast();
  const [hidden, setHidden] = useState<Set<number>>(new Set());
  const unhide = (ids: number[]) =>
    setHidden((current) => {
      const next = new Set(current);
      ids.forEach((id) => next.delete(id));
      return next;
    });

  const send = async (action: BulkAction, ids: number[]) => {
    const results = [];
    try {
      for (let i = 0; i < ids.length; i += BULK_LIMIT) {
        const answer = await bulk.mutateAsync({ workspaceId, action, ids: ids.slice(i, i + BULK_LIMIT) });
        results.push(...answer.results);
      }
    } catch (err) {
      toast({ title: `Could not ${action} the checks`, description: err instanceof Error ? err.message : undefined, tone: 'error' });
      return;
    } finally {
      if (action === 'delete') unhide(ids);
    }
    const failed = results.filter((r) => !r.ok);
    const done = results.length - failed.length;
    if (failed.length === 0) toast({ title: `${PAST[action]} ${plural(done)}` });
    else toast({ title: `${PAST[action]} ${plural(done)}; ${failed.length} failed`, description: failed[0]?.error?.message, tone: 'error' });
  };

  const run = (action: BulkAction, ids: number[]) => {
    clearSelection();
    if (action !== 'delete') {
      void send(action, ids);
      return;
    }
    setHidden((current) => new Set([...current, ...ids]));
    toast({
      title: `Deleting ${plural(ids.length)}…`,
      description: 'They are deleted when this closes.',
      durationMs: UNDO_MS,
      action: {
        label: 'Undo',
        altText: 'Undo the delete',
        onAction: () => {
          unhide(ids);
          toast({ title: 'Delete undone' });
        },
      },
      onExpire: () => void send('delete', ids),
    });
  };

  return { run, hidden, busy: bulk.isPending };
}
