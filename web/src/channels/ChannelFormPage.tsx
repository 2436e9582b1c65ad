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

const ADDRESS: Record<ChannelType, { label: string; type: 'email' | 'url' | 'text'; hint: string }> = {
  EMAIL: { label: 'E-mail address', type: 'email', hint: 'The address gets a confirmation link first; alerts go out once it is followed.' },
  SLACK: { label: 'Slack incoming webhook URL', type: 'url', hint: 'From Slack: Apps, Incoming Webhooks, Add to Slack.' },
  WEBHOOK: { label: 'Webhook URL', type: 'url', hint: 'Vigil POSTs signed JSON here; the signing secret is shown once, after creation.' },
  TEAMS: { label: 'Teams Workflows webhook URL', type: 'url', hint: 'From Teams: Workflows, "Post to a channel when a webhook request is received".' },
  DISCORD: { label: 'Discord webhook URL', type: 'url', hint: 'From Discord: Server Settings, Integrations, Webhooks, Copy Webhook URL.' },
  NTFY: { label: 'ntfy topic URL', type: 'url', hint: 'The topic as you subscribe to it, e.g. https://ntfy.sh/my-alerts or your own server’s.' },
  TELEGRAM: { label: 'Telegram bot token', type: 'text', hint: 'From @BotFather; add the bot to the chat first.' },
  PUSHOVER: { label: 'Pushover user key', type: 'text', hint: 'Your user (or group) key, from the Pushover dashboard.' },
  PAGERDUTY: { label: 'PagerDuty routing key', type: 'text', hint: 'The Events API v2 integration key of the service to page.' },
  SMS: { label: 'Phone number', type: 'text', hint: 'In international form, e.g. +4915123456789. Sent through AWS SNS; logged locally.' },
};

/** The second field some types need: ntfy's optional access token, Telegram's chat id. */
const EXTRA: Partial<Record<ChannelType, { label: string; hint: string; required: boolean }>> = {
  NTFY: { label: 'Access token (optional)', hint: 'For a protected topic (tk_...). Left empty, none is sent.', required: false },
  TELEGRAM: { label: 'Chat id', hint: 'A numeric chat id (groups are negative) or a public channel’s @username.', required: true },
  PUSHOVER: { label: 'Application token', hint: 'The API token of your Pushover application.', required: true },
};

function configOf(type: ChannelType, address: string, extra: string): Schemas['AlertChannelCreate']['config'] {
  if (type === 'EMAIL') return { email: address };
  if (type === 'SLACK') return { webhookUrl: address };
  if (type === 'TELEGRAM') return { botToken: address, chatId: extra };
  if (type === 'NTFY') return extra === '' ? { url: address } : { url: address, token: extra };
  if (type === 'PUSHOVER') return { userKey: address, appToken: extra };
  if (type === 'PAGERDUTY') return { routingKey: address };
  if (type === 'SMS') return { phoneNumber: address };
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
  const [extra, setExtra] = useState('');
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
        ? ({ workspaceId, name, type, enabled, config: configOf(type, address, extra) } as Schemas['AlertChannelCreate'])
        : { name, enabled, ...(address === '' ? {} : { config: configOf(type, address, extra) }) };
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
  const addr = ADDRESS[type];
  const second = EXTRA[type];
  return (
    <form className="check-form channel-form" onSubmit={submit} aria-label={title}>
      <h1>{title}</h1>
      {existing ? null : (
        <fieldset>
          <legend>Type</legend>
          <div className="radio-row">
            {(['EMAIL', 'SLACK', 'WEBHOOK', 'TEAMS', 'DISCORD', 'NTFY', 'TELEGRAM', 'PUSHOVER', 'PAGERDUTY', 'SMS'] as const).map((t) => (
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
      <Field label={addr.label} hint={existing ? `Now: ${destination(existing)}. Leave empty to keep it.` : addr.hint} error={configError}>
        {(aria) => <input {...aria} name="address" type={addr.type} required={existing === null} value={address} onChange={(e) => setAddress(e.target.value)} />}
      </Field>
      {second ? (
        <Field label={second.label} hint={existing ? `${second.hint} Sent with a new ${addr.label.toLowerCase()} only.` : second.hint}>
          {(aria) => <input {...aria} name="extra" required={second.required && (existing === null || address !== '')} value={extra} onChange={(e) => setExtra(e.target.value)} />}
        </Field>
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
