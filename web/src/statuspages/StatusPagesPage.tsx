import { Link, useNavigate } from 'react-router-dom';
import { explainError, useAccess } from '../ui/permission';
import { EmptyState } from '../ui/EmptyState';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { useCreatePage, usePages } from './api';
import { PageForm } from './PageForm';

/** The workspace's status pages, and (for members and above) a form for a new one. */
export function StatusPagesPage() {
  const { workspaceId, canAdmin, role } = useAccess();
  if (workspaceId === null) return <Skeleton label="Loading status pages" lines={4} />;
  return (
    <>
      <h1>Status pages</h1>
      <PageList workspaceId={workspaceId} />
      {canAdmin ? (
        <NewPage workspaceId={workspaceId} />
      ) : (
        <p className="muted">Your role ({role}) can view status pages; an admin or owner creates them and changes their settings.</p>
      )}
    </>
  );
}

function PageList({ workspaceId }: { workspaceId: number }) {
  const pages = usePages(workspaceId);
  const { role } = useAccess();
  if (pages.isPending) return <Skeleton label="Loading status pages" lines={4} />;
  if (pages.isError)
    return (
      <p className="form-error" role="alert">
        Status pages could not be loaded: {explainError(pages.error, role)}
      </p>
    );
  if (pages.data.length === 0) return <EmptyState title="No status pages yet">A status page tells your customers what works and what does not. Create one below.</EmptyState>;
  return (
    <ul className="page-list">
      {pages.data.map((p) => (
        <li key={p.id}>
          <Link to={`/status-pages/${p.id}`}>{p.name}</Link>{' '}
          <span className="muted">
            /status/{p.slug} · {p.visibility.toLowerCase().replace('_', ' ')}
            {p.enabled ? '' : ' · disabled'}
          </span>
        </li>
      ))}
    </ul>
  );
}

function NewPage({ workspaceId }: { workspaceId: number }) {
  const create = useCreatePage();
  const navigate = useNavigate();
  const toast = useToast();
  return (
    <section className="card section" aria-labelledby="new-page">
      <h2 id="new-page">New status page</h2>
      <PageForm
        submitLabel="Create page"
        busy={create.isPending}
        error={create.error}
        onSubmit={(fields) =>
          create.mutate(
            { ...fields, workspaceId, enabled: true, showIncidentHistory: true, showUptimeHistory: true, uptimeHistoryDays: 90, visibility: fields.visibility ?? 'PUBLIC' },
            {
              onSuccess: (page) => {
                toast({ title: `Created “${page.name}”` });
                navigate(`/status-pages/${page.id}`);
              },
            },
          )
        }
      />
    </section>
  );
}
