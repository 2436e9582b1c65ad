import { useState, type FormEvent } from 'react';
import { explainError, useAccess } from '../ui/permission';
import { CopyButton } from '../ui/CopyButton';
import { Field } from '../ui/Field';
import { When } from '../incidents/IncidentBadges';
import { useToast } from '../ui/toast';
import { usePageWrites, type StatusPage } from './api';

/**
 * A custom domain: save it, publish the two DNS records the page names (a TXT proving ownership,
 * a CNAME pointing at us), then verify. A failed verification says which record is missing.
 */
export function DomainPanel({ page, canWrite }: { page: StatusPage; canWrite: boolean }) {
  const writes = usePageWrites(page.id);
  const { role } = useAccess();
  const toast = useToast();
  const [domain, setDomain] = useState(page.customDomain ?? '');
  const v = page.customDomainVerification;
  const save = (event: FormEvent) => {
    event.preventDefault();
    writes.update.mutate(
      { customDomain: domain.trim() === '' ? null : domain.trim().toLowerCase() },
      { onSuccess: () => toast({ title: domain.trim() === '' ? 'Custom domain removed' : 'Custom domain saved' }) },
    );
  };
  const failed = writes.update.error ?? writes.verify.error;
  return (
    <section className="card section" aria-labelledby="domain-title">
      <h2 id="domain-title">Custom domain</h2>
      {canWrite ? (
        <form className="inline-form" aria-label="Custom domain" onSubmit={save}>
          <Field label="Domain" hint="For example status.example.com; empty to remove.">
            {(aria) => <input {...aria} name="customDomain" value={domain} onChange={(e) => setDomain(e.target.value)} />}
          </Field>
          <button type="submit" className="button" disabled={writes.update.isPending}>
            Save domain
          </button>
        </form>
      ) : (
        <p>{page.customDomain ?? 'No custom domain.'}</p>
      )}
      {page.customDomain && v ? (
        <>
          <p>
            Status: <strong data-domain-status={v.status}>{v.status === 'VERIFIED' ? 'Verified, served' : 'Waiting for DNS'}</strong>
            {v.checkedAt ? (
              <span className="muted">
                {' '}
                · last looked <When iso={v.checkedAt} />
              </span>
            ) : null}
          </p>
          <table className="dns-records">
            <caption>DNS records to add at your DNS provider</caption>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Name</th>
                <th scope="col">Value</th>
                <th scope="col">
                  <span className="visually-hidden">Copy</span>
                </th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>TXT</td>
                <td>
                  <code>{v.txtName}</code>
                </td>
                <td>
                  <code>{v.txtValue ?? '(saved with the domain)'}</code>
                </td>
                <td>
                  <CopyButton text={v.txtValue ?? ''} label="Copy the TXT value" />
                </td>
              </tr>
              <tr>
                <td>CNAME</td>
                <td>
                  <code>{page.customDomain}</code>
                </td>
                <td>
                  <code>{v.cnameTarget}</code>
                </td>
                <td>
                  <CopyButton text={v.cnameTarget} label="Copy the CNAME target" />
                </td>
              </tr>
            </tbody>
          </table>
          {canWrite && v.status !== 'VERIFIED' ? (
            <button
              type="button"
              className="button primary"
              disabled={writes.verify.isPending}
              onClick={() => writes.verify.mutate(undefined, { onSuccess: () => toast({ title: 'Domain verified' }) })}
            >
              Verify domain
            </button>
          ) : null}
        </>
      ) : null}
      {failed ? (
        <p className="form-error" role="alert">
          {explainError(failed, role)}
        </p>
      ) : null}
    </section>
  );
}
