import { useSearchParams } from 'react-router-dom';
import type { CheckStatus, CheckType } from '../api';
import { STATUS_OPTIONS } from '../StatusBadge';
import { KIND_OPTIONS } from '../kinds';

/** `cursor`: filtered lists page by the API's nextCursor; `page`: the unfiltered list pages by number. */
export type ListParams = { q: string; status: CheckStatus | null; checkType: CheckType | null; page: number; cursor: string | null };

const oneOf = <T extends string>(value: string | null, options: { value: T }[]): T | null => options.find((o) => o.value === value)?.value ?? null;

/** The list's filters live in the URL: a reload, a shared link or Back shows the same rows. */
export function useListParams(): [ListParams, (change: Partial<ListParams>) => void] {
  const [search, setSearch] = useSearchParams();
  const params: ListParams = {
    q: search.get('q') ?? '',
    status: oneOf(search.get('status'), STATUS_OPTIONS),
    checkType: oneOf(search.get('kind'), KIND_OPTIONS),
    page: Math.max(1, Number(search.get('page')) || 1),
    cursor: search.get('cursor'),
  };
  const update = (change: Partial<ListParams>) => {
    const next = { ...params, page: 1, cursor: null, ...change };
    const out = new URLSearchParams();
    if (next.q) out.set('q', next.q);
    if (next.status) out.set('status', next.status);
    if (next.checkType) out.set('kind', next.checkType);
    if (next.page > 1) out.set('page', String(next.page));
    if (next.cursor) out.set('cursor', next.cursor);
    setSearch(out, { replace: true });
  };
  return [params, update];
}
