import { useState } from 'react';
import { Link } from 'react-router-dom';
import { explainError, useAccess } from '../ui/permission';
import { EmptyState } from '../ui/EmptyState';
import { Skeleton } from '../ui/Skeleton';
import { useWorkspace } from '../workspace/context';
import { policiesUsing, usePolicies } from '../policies/api';
import { destination, TYPE_LABEL, useChannels, useTestChannel, type Channel, type TestResult } from './api';

/**
 * The workspace's alert channels: where each sends (masked as the API masks it for this role),
 * whether it can deliver (e-mail confirmation, disabled, last error), which escalation policies
 * use it, and for admins a test send whose result shows beside the list.
 */
export function ChannelsPage() {
  const { workspaceId } = useWorkspace();
  const { canAdmin } = useAccess();
  const channels = useChannels(workspaceId);
  const policies = usePolicies(workspaceId);
  const test = useTestChannel();
  const [result, setResult] = useState<{ channel: Channel; outcome: TestResult | Error } | null>(null);
  const send = (channel: Channel) =>
    test.mutate(channel.id, {
      onSuccess: (outcome) => setResult({ channel, outcome }),
      onError: (error) => setResult({ channel, outcome: error }),
    });
  return (
    <>
      <div className="page-head">
        <h1>Alert channels</h1>
        {canAdmin ? (
          <Link className="button primary" to="/channels/new">
            New channel
          </Link>
        ) : null}
      </div>
      <div role="status" className="test-result" aria-live="polite">
        {result ? <TestOutcome channel={result.channel} outcome={result.outcome} /> : null}
      </div>
      {channels.isPending ? (
        <Skeleton label="Loading alert channels" lines={4} />
      ) : channels.isError ? (
        <p className="form-error" role="alert">
          Alert channels could not be loaded: {explainError(channels.error)}
        </p>
      ) : channels.data.length === 0 ? (
        <EmptyState title="No alert channels yet">
          A channel is where alerts go: an e-mail address, a Slack webhook or your own webhook.{' '}
          {canAdmin ? <Link to="/channels/new">Add the first one</Link> : 'An admin of the workspace can add one.'}
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="data-table channels-table">
            <caption className="visually-hidden">Alert channels ({channels.data.length})</caption>
            <thead>
              <tr>
                <th scope="col">Channel</th>
                <th scope="col">Type</th>
                <th scope="col">Sends to</th>
                <th scope="col">State</th>
                <th scope="col">Used by</th>
                {canAdmin ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {channels.data.map((channel) => {
                const users = policiesUsing(policies.data ?? [], `ALERT_CHANNEL:${channel.id}`);
                return (
                  <tr key={channel.id} data-channel-id={channel.id}>
                    <th scope="row">{channel.name}</th>
                    <td>{TYPE_LABEL[channel.type]}</td>
                    <td className="mono">{destination(channel)}</td>
                    <td>
                      <ChannelState channel={channel} />
                    </td>
                    <td className="used-by">
                      {users.length === 0
                        ? 'No policy'
                        : users.map((p, i) => (
                            <span key={p.id}>
                              {i > 0 ? ', ' : ''}
                              <Link to={`/policies/${p.id}`}>{p.name}</Link>
                            </span>
                          ))}
                    </td>
                    {canAdmin ? (
                      <td>
                        <div className="button-row">
                          <Link className="button" to={`/channels/${channel.id}/edit`} aria-label={`Edit ${channel.name}`}>
                            Edit
                          </Link>
                          <button type="button" className="button" disabled={test.isPending} onClick={() => send(channel)} aria-label={`Send test to ${channel.name}`}>
                            Send test
                          </button>
                        </div>
                      </td>
                    ) : null}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function ChannelState({ channel }: { channel: Channel }) {
  if (!channel.enabled) return <span data-state="disabled">Disabled{channel.disabledReason ? `: ${channel.disabledReason}` : ''}</span>;
  if (channel.type === 'EMAIL' && !channel.emailConfirmed) {
    return <span data-state="unconfirmed">Awaiting confirmation: no alert is sent until the address follows the link in the mail it was sent</span>;
  }
  if (channel.lastError) return <span data-state="error">Last delivery failed: {channel.lastError}</span>;
  return <span data-state="active">Active</span>;
}

function TestOutcome({ channel, outcome }: { channel: Channel; outcome: TestResult | Error }) {
  if (outcome instanceof Error) {
    return (
      <p className="form-error">
        Test to “{channel.name}” not sent: {explainError(outcome)}
      </p>
    );
  }
  return (
    <p className={outcome.ok ? 'test-ok' : 'form-error'}>
      Test to “{channel.name}”: {outcome.message}
      {outcome.statusCode !== null ? ` (HTTP ${outcome.statusCode})` : ''}
    </p>
  );
}
