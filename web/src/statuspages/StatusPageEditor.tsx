import { Link, useParams } from 'react-router-dom';
import { explainError, useAccess } from '../ui/permission';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { usePage, usePageWrites, type StatusPageDetail } from './api';
import { Announcements } from './Announcements';
import { ComponentsEditor } from './ComponentsEditor';
import { DomainPanel } from './DomainPanel';
import { LinksPanel } from './LinksPanel';
import { PageForm } from './PageForm';

/** One status page: its settings, components, announcements, domain, and where it is published. */
export function StatusPageEditor() {
  const id = Number(useParams().id);
  const page = usePage(id);
  const { role } = useAccess();
  if (page.isPending) return <Skeleton label="Loading the status page" lines={8} />;
  if (page.isError)
    return (
      <>
        <h1>Status page</h1>
        <p className="form-error" role="alert">
          This page could not be loaded: {explainError(page.error, role)} <Link to="/status-pages">All status pages</Link>
        </p>
      </>
    );
  return <Editor page={page.data} />;
}

function Editor({ page }: { page: StatusPageDetail }) {
  const { canWrite, canAdmin, role } = useAccess();
  const writes = usePageWrites(page.id);
  const toast = useToast();
  return (
    <>
      <p>
        <Link to="/status-pages">Status pages</Link>
      </p>
      <h1>{page.name}</h1>
      <LinksPanel page={page} showSubscribers />
      <section className="card section" aria-labelledby="settings-title">
        <h2 id="settings-title">Settings</h2>
        {canAdmin ? (
          <PageForm
            key={page.updatedAt}
            page={page}
            submitLabel="Save settings"
            busy={writes.update.isPending}
            error={writes.update.error}
            onSubmit={(fields) => writes.update.mutate(fields, { onSuccess: () => toast({ title: 'Settings saved' }) })}
          />
        ) : (
          <dl className="facts">
            <dt>Address</dt>
            <dd>/status/{page.slug}</dd>
            <dt>Visibility</dt>
            <dd>{page.visibility.toLowerCase().replace('_', ' ')}</dd>
            <dt>Your role</dt>
            <dd>{role}: an admin or owner changes these settings</dd>
          </dl>
        )}
      </section>
      <ComponentsEditor pageId={page.id} components={page.components} canWrite={canAdmin} />
      <Announcements pageId={page.id} components={page.components} canWrite={canWrite} />
      <DomainPanel page={page} canWrite={canAdmin} />
    </>
  );
}
