import { useState, type FormEvent } from 'react';
import { When } from '../incidents/IncidentBadges';
import { CopyButton } from '../ui/CopyButton';
import { Field } from '../ui/Field';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { explainError, useAccess } from '../ui/permission';
import { useApiKeys, useKeyWrites, type ApiKey } from './api';

/**
 * API keys (admins only, as the API requires). A new key's secret is shown once, right after it
 * is made, and lives only in this component's state: leaving the page forgets it.
 */
export function ApiKeysSection({ workspaceId }: { workspaceId: number }) {
  const { canAdmin, role } = useAccess();
  const keys = useApiKeys(workspaceId, canAdmin);
  const writes = useKeyWrites(workspaceId);
  const toast = useToast();
  const [name, setName] = useState('');
  const [permission, setPermission] = useState<ApiKey['permission']>('read_write');
  const [created, setCreated] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<number | null>(null);
  if (!canAdmin) {
    return (
      <section className="card section" aria-labelledby="keys-title">
        <h2 id="keys-title">API keys</h2>
        <p className="muted">Your role ({role}) cannot see API keys; an admin or owner manages them.</p>
      </section>
    );
  }
  const create = (event: FormEvent) => {
    event.preventDefault();
    writes.create.mutate({ name, permission, kind: 'service' }, { onSuccess: (key) => (setCreated(key.key), setName('')) });
  };
  const failed = writes.create.error ?? writes.setEnabled.error ?? writes.remove.error;
  return (
    <section className="card section" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      {created !== null ? (
        <div className="key-once" role="status">
          <p>
            <strong>Copy this key now: it is shown only once.</strong>
          </p>
          <div className="copy-row">
            <label htmlFor="new-key" className="visually-hidden">
              New API key
            </label>
            <input id="new-key" readOnly value={created} size={48} />
            <CopyButton text={created} label="Copy the new API key" />
            <button type="button" className="button ghost" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      ) : null}
      {keys.isPending ? (
        <Skeleton label="Loading API keys" lines={3} />
      ) : keys.isError ? (
        <p className="form-error" role="alert">
          {explainError(keys.error, role)}
        </p>
      ) : keys.data.length === 0 ? (
        <p className="muted">No API keys yet.</p>
      ) : (
        <table className="settings-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Permission</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.map((k) => (
              <tr key={k.id} data-key={k.name} data-enabled={String(k.enabled)}>
                <td>{k.name}</td>
                <td>
                  <code>
                    {k.displayPrefix}…{k.lastFour}
                  </code>
                </td>
                <td>{k.permission === 'read_only' ? 'Read only' : 'Read and write'}</td>
                <td>{k.lastUsedAt ? <When iso={k.lastUsedAt} /> : 'Never'}</td>
                <td className="button-row">
                  <button
                    type="button"
                    className="button"
                    aria-label={`${k.enabled ? 'Disable' : 'Enable'} ${k.name}`}
                    onClick={() =>
                      writes.setEnabled.mutate({ id: k.id, enabled: !k.enabled }, { onSuccess: () => toast({ title: `${k.name} ${k.enabled ? 'disabled' : 'enabled'}` }) })
                    }
                  >
                    {k.enabled ? 'Disable' : 'Enable'}
                  </button>
                  {confirming === k.id ? (
                    <>
                      <button
                        type="button"
                        className="button danger"
                        aria-label={`Delete ${k.name} for good`}
                        onClick={() => writes.remove.mutate(k.id, { onSuccess: () => (toast({ title: `Deleted ${k.name}` }), setConfirming(null)) })}
                      >
                        Delete for good
                      </button>
                      <button type="button" className="button ghost" onClick={() => setConfirming(null)}>
                        Keep
                      </button>
                    </>
                  ) : (
                    <button type="button" className="button ghost" aria-label={`Delete ${k.name}`} onClick={() => setConfirming(k.id)}>
                      Delete
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form className="inline-form" aria-label="New API key" onSubmit={create}>
        <Field label="Key name">{(aria) => <input {...aria} name="keyName" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />}</Field>
        <Field label="Permission">
          {(aria) => (
            <select {...aria} name="permission" value={permission} onChange={(e) => setPermission(e.target.value as ApiKey['permission'])}>
              <option value="read_write">Read and write</option>
              <option value="read_only">Read only</option>
            </select>
          )}
        </Field>
        <button type="submit" className="button primary" disabled={writes.create.isPending}>
          Create key
        </button>
      </form>
      {failed ? (
        <p className="form-error" role="alert">
          {explainError(failed, role)}
        </p>
      ) : null}
    </section>
  );
}
