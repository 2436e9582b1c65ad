import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ApiError, type Schemas } from '../api/client';
import { explainError } from '../ui/permission';
import { CopyButton } from '../ui/CopyButton';
import { Field } from '../ui/Field';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { useWorkspace } from '../workspace/context';
import { destination, TYPE_LABEL, useChannel, useSaveChannel, type Channel, type ChannelType } from './api';

/** `/channels/new` and `/channels/:id/edit`. */
export function ChannelFormPage() {
  const { id } = useParams();
  if (id === undefined) return <ChannelForm existing={null} />;
  return <EditChannel id={Number(id)} />;
}

function EditChannel({ id }: { id: number }) {
  const channel = useChannel(id);
  if (channel.isPending) return <Skeleton label="Loading the channel" lines={4} />;
  if (channel.isError)
    return (
      <p className="form-error" role="alert">
        The channel could not be loaded: {explainError(channel.error)}
      </p>
    );
  return <ChannelForm existing={channel.data} />;
}

/** The types this form makes and edits whole; the others' keys are set through the API (docs/guide/alerting.md). */
type FormType = 'EMAIL' | 'SLACK' | 'WEBHOOK';
const ADDRESS: Record<FormType, { label: string; type: 'email' | 'url'; hint: string }> = {
  EMAIL: { label: 'E-mail address', type: 'email', hint: 'The address gets a confirmation link first; alerts go out once it is followed.' },
  SLACK: { label: 'Slack incoming webhook URL', type: 'url', hint: 'From Slack: Apps, Incoming Webhooks, Add to Slack.' },
  WEBHOOK: { label: 'Webhook URL', type: 'url', hint: 'Vigil POSTs signed JSON here; the signing secret is shown once, after creation.' },
};

function configOf(type: ChannelType, address: string): Schemas['AlertChannelCreate']['config'] {
  if (type === 'EMAIL') return { email: address };
  if (type === 'SLACK') return { webhookUrl: address };
  return { url: address };
}

/**
 * Create or edit a channel. On edit the current destination is shown masked (as the API answers
 * it) and an empty address keeps it: the secret is never sent back to the browser to be resent.
 */
function ChannelForm({ existing }: { existing: Channel | null }) {
  const { workspaceId } = useWorkspace();
  const navigate = useNavigate();
  const toast = useToast();
  const save = useSaveChannel();
  const [type, setType] = useState<ChannelType>(existing?.type ?? 'EMAIL');
  const [name, setName] = useState(existing?.name ?? '');
  const [address, setAddress] = useState('');
  const [enabled, setEnabled] = useState(existing?.enabled ?? true);
  const [secret, setSecret] = useState<{ id: number; value: string } | null>(null);
  const apiError = save.error instanceof ApiError ? save.error : null;
  const errors = apiError?.fieldErrors() ?? {};
  const configError = Object.entries(errors).find(([key]) => key.startsWith('config'))?.[1];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (workspaceId === null) return;
    const body =
      existing === null
        ? ({ workspaceId, name, type, enabled, config: configOf(type, address) } as Schemas['AlertChannelCreate'])
        : { name, enabled, ...(address === '' ? {} : { config: configOf(type, address) }) };
    save.mutate(
      { id: existing?.id ?? null, body },
      {
        onSuccess: (saved) => {
          toast({ title: existing ? `Saved “${saved.name}”` : `Created “${saved.name}”` });
          const shown = (saved as Schemas['AlertChannelCreated']).secret;
          if (shown) setSecret({ id: saved.id, value: shown });
          else navigate('/channels');
        },
      },
    );
  };
  if (secret) {
    return (
      <section className="card" aria-labelledby="secret-title">
        <h1 id="secret-title">Webhook signing secret</h1>
        <p>Store it now: Vigil shows it this once. Each request carries a signature made with it, so your endpoint can tell Vigil's calls from anyone else's.</p>
        <div className="copy-row">
          <label htmlFor="webhook-secret" className="visually-hidden">
            Signing secret
          </label>
          <input id="webhook-secret" readOnly value={secret.value} className="mono" />
          <CopyButton text={secret.value} label="Copy the signing secret" />
        </div>
        <Link className="button primary" to="/channels">
          Done
        </Link>
      </section>
    );
  }
  const title = existing ? `Edit ${existing.name}` : 'New alert channel';
  const addr = type === 'EMAIL' || type === 'SLACK' || type === 'WEBHOOK' ? ADDRESS[type] : null;
  return (
    <form className="check-form channel-form" onSubmit={submit} aria-label={title}>
      <h1>{title}</h1>
      {existing ? null : (
        <fieldset>
          <legend>Type</legend>
          <div className="radio-row">
            {(['EMAIL', 'SLACK', 'WEBHOOK'] as const).map((t) => (
              <label key={t}>
                <input type="radio" name="type" checked={type === t} onChange={() => setType(t)} /> {TYPE_LABEL[t]}
              </label>
            ))}
          </div>
        </fieldset>
      )}
      <Field label="Name" error={errors.name}>
        {(aria) => <input {...aria} name="name" required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      {addr ? (
        <Field label={addr.label} hint={existing ? `Now: ${destination(existing)}. Leave empty to keep it.` : addr.hint} error={configError}>
          {(aria) => <input {...aria} name="address" type={addr.type} required={existing === null} value={address} onChange={(e) => setAddress(e.target.value)} />}
        </Field>
      ) : existing ? (
        <p className="hint">
          Now: {destination(existing)}. Its keys are changed through the API (PATCH /alert-channels/{existing.id}).
        </p>
      ) : null}
      <label className="check-row">
        <input type="checkbox" name="enabled" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled
      </label>
      {save.error ? (
        <p className="form-error" role="alert">
          {explainError(save.error)}
        </p>
      ) : null}
      <div className="button-row">
        <button type="submit" className="button primary" disabled={save.isPending}>
          {existing ? 'Save' : 'Create channel'}
        </button>
        <Link className="button ghost" to="/channels">
          Cancel
        </Link>
      </div>
    </form>
  );
}
