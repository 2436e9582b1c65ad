import { useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router-dom';
import { EmptyState } from '../../ui/EmptyState';
import { Skeleton } from '../../ui/Skeleton';
import { useWorkspace } from '../../workspace/context';
import { useProjects } from '../../workspace/queries';
import { useCheckList, useSparklines } from '../api';
import { BulkBar } from './BulkBar';
import { ChecksTable } from './ChecksTable';
import { Filters } from './Filters';
import { Pager } from './Pager';
import { useBulkActions } from './useBulkActions';
import { useListParams } from './useListParams';

export function ChecksPage() {
  const { workspaceId } = useWorkspace();
  return (
    <>
      <div className="page-head">
        <h1>Checks</h1>
        <Link className="button primary" to="/checks/new">
          New check
        </Link>
      </div>
      {workspaceId === null ? <Skeleton lines={8} /> : <ChecksList workspaceId={workspaceId} />}
    </>
  );
}

function ChecksList({ workspaceId }: { workspaceId: number }) {
  const { projectId } = useWorkspace();
  const [params, setParams] = useListParams();
  const list = useCheckList({ workspaceId, projectId, ...params });
  const projects = useProjects(workspaceId);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [cursors, setCursors] = useState<(string | null)[]>([]);
  // The walked cursors belong to one filter: a new filter starts from its first page.
  useEffect(() => setCursors([]), [params.q, params.status, params.checkType, projectId]);
  const bulk = useBulkActions(workspaceId, () => setSelected(new Set()));
  const rows = useMemo(() => (list.data?.items ?? []).filter((c) => !bulk.hidden.has(c.id)), [list.data, bulk.hidden]);
  const httpIds = rows.filter((c) => c.checkType === 'HTTP').map((c) => c.id);
  const sparklines = useSparklines(workspaceId, httpIds);
  const probes = useMemo(() => new Map((sparklines.data?.items ?? []).map((s) => [s.id, s])), [sparklines.data]);
  const projectNames = useMemo(() => new Map((projects.data ?? []).map((p) => [p.id, p.name])), [projects.data]);
  const filtered = params.q !== '' || params.status !== null || params.checkType !== null || projectId !== null;

  const select = (ids: number[], on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      ids.forEach((id) => (on ? next.add(id) : next.delete(id)));
      return next;
    });

  return (
    <>
      <Filters params={params} onChange={setParams} />
      <BulkBar count={selected.size} busy={bulk.busy} onAction={(action) => bulk.run(action, [...selected])} onClear={() => setSelected(new Set())} />
      {list.isPending ? (
        <Skeleton lines={8} label="Loading checks" />
      ) : list.isError ? (
        <EmptyState title="Could not load the checks">
          {list.error.message}{' '}
          <button type="button" className="button" onClick={() => void list.refetch()}>
            Try again
          </button>
        </EmptyState>
      ) : rows.length === 0 ? (
        filtered ? (
          <EmptyState title="No check matches">
            Change the search or the filters, or{' '}
            <button type="button" className="button ghost" onClick={() => setParams({ q: '', status: null, checkType: null })}>
              clear them
            </button>
            .
          </EmptyState>
        ) : (
          <EmptyState title="No checks yet">
            A check watches a cron job (it pings Vigil) or a URL (Vigil probes it). <Link to="/checks/new">Create your first check</Link>.
          </EmptyState>
        )
      ) : (
        <>
          <ChecksTable checks={rows} projectNames={projectNames} probes={probes} selected={selected} onSelect={select} />
          <Pager
            data={list.data}
            hasPrevious={params.cursor !== null || params.page > 1}
            onNext={() => {
              if (list.data.nextCursor !== null && list.data.pageCount === null) {
                setCursors((stack) => [...stack, params.cursor]);
                setParams({ ...params, cursor: list.data.nextCursor });
              } else setParams({ ...params, page: params.page + 1 });
            }}
            onPrevious={() => {
              if (params.cursor !== null) {
                // After a reload the walked cursors are gone: Previous then starts over.
                setParams({ ...params, cursor: cursors.at(-1) ?? null });
                setCursors((stack) => stack.slice(0, -1));
              } else setParams({ ...params, page: Math.max(1, params.page - 1) });
            }}
          />
        </>
      )}
    </>
  );
}
