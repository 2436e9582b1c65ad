import { useState, type FormEvent } from 'react';
import { explainError, useAccess } from '../ui/permission';
import { Field } from '../ui/Field';
import { Skeleton } from '../ui/Skeleton';
import { When } from '../incidents/IncidentBadges';
import { useToast } from '../ui/toast';
import { useAnnouncements, usePageWrites, type Announcement, type AnnouncementStatus, type PageComponent } from './api';
import { MarkdownPreview } from './MarkdownPreview';

const STATUSES: AnnouncementStatus[] = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'];
const IMPACTS = ['NONE', 'MINOR', 'MAJOR', 'CRITICAL'] as const;
const words = (s: string) => s.charAt(0) + s.slice(1).toLowerCase();

/** Announcements of the page, newest first, each with its timeline; new ones and updates with a live preview. */
export function Announcements({ pageId, components, canWrite }: { pageId: number; components: PageComponent[]; canWrite: boolean }) {
  const list = useAnnouncements(pageId);
  const { role } = useAccess();
  return (
    <section className="card section" aria-labelledby="announcements-title">
      <h2 id="announcements-title">Announcements</h2>
      {canWrite ? <NewAnnouncement pageId={pageId} components={components} /> : null}
      {list.isPending ? (
        <Skeleton label="Loading announcements" lines={3} />
      ) : list.isError ? (
        <p className="form-error" role="alert">
          Announcements could not be loaded: {explainError(list.error, role)}
        </p>
      ) : list.data.length === 0 ? (
        <p className="muted">No announcements yet.</p>
      ) : (
        <ul className="announcement-list">
          {list.data.map((a) => (
            <AnnouncementItem key={a.id} pageId={pageId} announcement={a} canWrite={canWrite} />
          ))}
        </ul>
      )}
    </section>
  );
}

function NewAnnouncement({ pageId, components }: { pageId: number; components: PageComponent[] }) {
  const writes = usePageWrites(pageId);
  const toast = useToast();
  const { role } = useAccess();
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [impact, setImpact] = useState<(typeof IMPACTS)[number]>('MINOR');
  const [affected, setAffected] = useState<number[]>([]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    writes.announce.mutate(
      { title, body, impact, componentIds: affected },
      {
        onSuccess: (a) => {
          toast({ title: `Posted “${a.title}”` });
          setTitle('');
          setBody('');
          setAffected([]);
        },
      },
    );
  };
  return (
    <form className="check-form" aria-label="New announcement" onSubmit={submit}>
      <Field label="Title">{(aria) => <input {...aria} name="title" required maxLength={200} value={title} onChange={(e) => setTitle(e.target.value)} />}</Field>
      <div className="md-editor">
        <Field label="Message" hint="Markdown. Links, lists and emphasis are kept; scripts and styles are removed.">
          {(aria) => <textarea {...aria} name="body" required rows={5} maxLength={5000} value={body} onChange={(e) => setBody(e.target.value)} />}
        </Field>
        <MarkdownPreview source={body} label="Preview of the message" />
      </div>
      <div className="two-col">
        <Field label="Impact">
          {(aria) => (
            <select {...aria} name="impact" value={impact} onChange={(e) => setImpact(e.target.value as (typeof IMPACTS)[number])}>
              {IMPACTS.map((i) => (
                <option key={i} value={i}>
                  {words(i)}
                </option>
              ))}
            </select>
          )}
        </Field>
        {components.length > 0 ? (
          <fieldset>
            <legend>Affected components</legend>
            {components.map((c) => (
              <label key={c.id} className="check-row">
                <input
                  type="checkbox"
                  checked={affected.includes(c.id)}
                  onChange={(e) => setAffected(e.target.checked ? [...affected, c.id] : affected.filter((id) => id !== c.id))}
                />{' '}
                {c.name}
              </label>
            ))}
          </fieldset>
        ) : null}
      </div>
      {writes.announce.error ? (
        <p className="form-error" role="alert">
          {explainError(writes.announce.error, role)}
        </p>
      ) : null}
      <div className="button-row">
        <button type="submit" className="button primary" disabled={writes.announce.isPending}>
          Post announcement
        </button>
      </div>
    </form>
  );
}

function AnnouncementItem({ pageId, announcement: a, canWrite }: { pageId: number; announcement: Announcement; canWrite: boolean }) {
  return (
    <li className="announcement" data-announcement={a.title}>
      <h3>
        {a.title} <span className="badge">{words(a.status)}</span>
      </h3>
      <ol className="announcement-timeline">
        {[...a.updates].reverse().map((u) => (
          <li key={u.id}>
            <span className="muted">
              {u.status ? `${words(u.status)} · ` : ''}
              <When iso={u.createdAt} />
            </span>
            <p className="announcement-body">{u.body}</p>
          </li>
        ))}
      </ol>
      {canWrite && a.status !== 'RESOLVED' ? <PostUpdate pageId={pageId} announcement={a} /> : null}
    </li>
  );
}

function PostUpdate({ pageId, announcement }: { pageId: number; announcement: Announcement }) {
  const writes = usePageWrites(pageId);
  const { role } = useAccess();
  const toast = useToast();
  const [body, setBody] = useState('');
  const [status, setStatus] = useState<AnnouncementStatus>(announcement.status);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    writes.postUpdate.mutate(
      { announcementId: announcement.id, body, status },
      {
        onSuccess: () => {
          toast({ title: 'Update posted' });
          setBody('');
        },
      },
    );
  };
  return (
    <form className="check-form" aria-label={`Update “${announcement.title}”`} onSubmit={submit}>
      <div className="md-editor">
        <Field label="Update">{(aria) => <textarea {...aria} name="update" required rows={3} maxLength={5000} value={body} onChange={(e) => setBody(e.target.value)} />}</Field>
        <MarkdownPreview source={body} label={`Preview of the update to “${announcement.title}”`} />
      </div>
      <Field label="New status">
        {(aria) => (
          <select {...aria} name="status" value={status} onChange={(e) => setStatus(e.target.value as AnnouncementStatus)}>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {words(s)}
              </option>
            ))}
          </select>
        )}
      </Field>
      {writes.postUpdate.error ? (
        <p className="form-error" role="alert">
          {explainError(writes.postUpdate.error, role)}
        </p>
      ) : null}
      <button type="submit" className="button" disabled={writes.postUpdate.isPending}>
        Post update
      </button>
    </form>
  );
}
