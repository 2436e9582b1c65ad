import * as AlertDialog from '@radix-ui/react-alert-dialog';
import { useId, useState, type FormEvent } from 'react';
import { EmptyState } from '../ui/EmptyState';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { useWorkspace } from '../workspace/context';
import { useNoteMutations, useNotes, type IncidentNote } from './api';
import { When } from './IncidentBadges';

const MAX_NOTE = 10_000;

/**
 * The incident's notes, oldest first. A note is plain text as the API stores it: React renders it
 * as text (line breaks kept by CSS), never as HTML. Only its author may edit or delete a note.
 */
export function Notes({ incidentId, canWrite }: { incidentId: number; canWrite: boolean }) {
  const notes = useNotes(incidentId);
  const { me } = useWorkspace();
  return (
    <section aria-labelledby="notes-title">
      <h2 id="notes-title">Notes</h2>
      {notes.isPending ? (
        <Skeleton label="Loading the notes" lines={2} />
      ) : notes.isError ? (
        <p className="form-error" role="alert">
          The notes could not be loaded: {notes.error.message}
        </p>
      ) : notes.data.length === 0 ? (
        <EmptyState title="No notes yet">
          {canWrite ? 'Write what you found or did below, so the next person knows.' : 'Members add notes as they work on the incident.'}
        </EmptyState>
      ) : (
        <ul className="notes">
          {notes.data.map((note) => (
            <Note key={note.id} incidentId={incidentId} note={note} mine={me !== undefined && note.authorId === me.id} />
          ))}
        </ul>
      )}
      {canWrite ? <AddNote incidentId={incidentId} /> : null}
    </section>
  );
}

function AddNote({ incidentId }: { incidentId: number }) {
  const { add } = useNoteMutations(incidentId);
  const toast = useToast();
  const [body, setBody] = useState('');
  const [error, setError] = useState<string | null>(null);
  const fieldId = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate(body, {
      onSuccess: () => {
        setBody('');
        setError(null);
        toast({ title: 'Note added' });
      },
      onError: (err) => setError(err.message),
    });
  };
  return (
    <form className="note-form" onSubmit={submit}>
      <label className="field" htmlFor={fieldId}>
        <span>Add a note</span>
      </label>
      <textarea
        id={fieldId}
        value={body}
        maxLength={MAX_NOTE}
        required
        aria-invalid={error !== null}
        aria-describedby={error ? `${fieldId}-error` : undefined}
        onChange={(e) => setBody(e.target.value)}
      />
      {error ? (
        <p id={`${fieldId}-error`} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="button-row">
        <button type="submit" className="button primary" disabled={add.isPending || body.trim() === ''}>
          Add note
        </button>
      </div>
    </form>
  );
}

function Note({ incidentId, note, mine }: { incidentId: number; note: IncidentNote; mine: boolean }) {
  const { edit, remove } = useNoteMutations(incidentId);
  const toast = useToast();
  const [draft, setDraft] = useState<string | null>(null);
  const fieldId = useId();
  const author = mine ? 'You' : (note.author?.email ?? (note.authorApiKey ? `API key “${note.authorApiKey.name}”` : 'A former member'));
  const save = (e: FormEvent) => {
    e.preventDefault();
    if (draft === null) return;
    edit.mutate(
      { noteId: note.id, body: draft },
      {
        onSuccess: () => {
          setDraft(null);
          toast({ title: 'Note saved' });
        },
        onError: (err) => toast({ title: 'Could not save the note', description: err.message, tone: 'error' }),
      },
    );
  };
  return (
    <li className="note card" data-note={note.id}>
      <p className="note-meta">
        <strong>{author}</strong> <When iso={note.createdAt} />
        {note.updatedAt !== note.createdAt ? <span className="muted"> (edited)</span> : null}
      </p>
      {draft === null ? (
        <p className="note-body">{note.body}</p>
      ) : (
        <form onSubmit={save}>
          <label className="visually-hidden" htmlFor={fieldId}>
            Edit your note
          </label>
          <textarea id={fieldId} value={draft} maxLength={MAX_NOTE} required autoFocus onChange={(e) => setDraft(e.target.value)} />
          <div className="button-row">
            <button type="submit" className="button primary" disabled={edit.isPending || draft.trim() === ''}>
              Save note
            </button>
            <button type="button" className="button ghost" onClick={() => setDraft(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {mine && draft === null ? (
        <div className="button-row">
          <button type="button" className="button ghost" onClick={() => setDraft(note.body)}>
            Edit<span className="visually-hidden"> your note of {note.createdAt}</span>
          </button>
          <AlertDialog.Root>
            <AlertDialog.Trigger asChild>
              <button type="button" className="button ghost danger">
                Delete<span className="visually-hidden"> your note of {note.createdAt}</span>
              </button>
            </AlertDialog.Trigger>
            <AlertDialog.Portal>
              <AlertDialog.Overlay className="dialog-overlay" />
              <AlertDialog.Content className="dialog card">
                <AlertDialog.Title>Delete this note?</AlertDialog.Title>
                <AlertDialog.Description>The note disappears for everyone. This cannot be undone.</AlertDialog.Description>
                <div className="button-row">
                  <AlertDialog.Cancel className="button">Keep it</AlertDialog.Cancel>
                  <AlertDialog.Action
                    className="button danger"
                    onClick={() =>
                      remove.mutate(note.id, {
                        onSuccess: () => toast({ title: 'Note deleted' }),
                        onError: (err) => toast({ title: 'Could not delete the note', description: err.message, tone: 'error' }),
                      })
                    }
                  >
                    Delete note
                  </AlertDialog.Action>
                </div>
              </AlertDialog.Content>
            </AlertDialog.Portal>
          </AlertDialog.Root>
        </div>
      ) : null}
    </li>
  );
}
