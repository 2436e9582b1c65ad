import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';

export type Channel = Schemas['AlertChannel'];
export type ChannelType = Channel['type'];
export type TestResult = Schemas['AlertChannelTestResult'];

const channelKeys = {
  all: ['alert-channels'] as const,
  list: (workspaceId: number) => ['alert-channels', 'list', workspaceId] as const,
  detail: (id: number) => ['alert-channels', 'detail', id] as const,
};

export const TYPE_LABEL: Record<ChannelType, string> = {
  EMAIL: 'E-mail',
  SLACK: 'Slack',
  WEBHOOK: 'Webhook',
  TEAMS: 'Microsoft Teams',
  DISCORD: 'Discord',
  NTFY: 'ntfy',
  TELEGRAM: 'Telegram',
  PUSHOVER: 'Pushover',
  PAGERDUTY: 'PagerDuty',
  SMS: 'SMS',
};

export const useChannels = (workspaceId: number | null) =>
  useQuery({
    queryKey: channelKeys.list(workspaceId ?? 0),
    enabled: workspaceId !== null,
    queryFn: () => unwrap(api.GET('/alert-channels', { params: { query: { workspaceId: workspaceId ?? 0 } } })),
  });

export const useChannel = (id: number) =>
  useQuery({ queryKey: channelKeys.detail(id), enabled: Number.isInteger(id) && id > 0, queryFn: () => unwrap(api.GET('/alert-channels/{id}', { params: { path: { id } } })) });

/** The channel's destination as the API shows it to this role (masked below ADMIN, a hint for secrets). */
export function destination(channel: Channel): string {
  const config = channel.config;
  if ('email' in config) return config.email;
  if ('webhookUrl' in config) return config.webhookUrl;
  // A bot token is whole for ADMIN: the list shows its end only, as it shows a webhook secret's.
  if ('botToken' in config) return `chat ${config.chatId} (bot token …${config.botToken.slice(-4)})`;
  if ('userKey' in config) return `user ${config.userKey}`;
  if ('routingKey' in config) return `routing key ${config.routingKey}`;
  if ('phoneNumber' in config) return config.phoneNumber;
  if ('secretHint' in config) return `${config.url} (secret ${config.secretHint})`;
  if ('token' in config && config.token !== null) return `${config.url} (token …${config.token.slice(-4)})`;
  return config.url;
}

export function useSaveChannel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { id: number | null; body: Schemas['AlertChannelCreate'] | Schemas['AlertChannelUpdate'] }) =>
      input.id === null
        ? unwrap(api.POST('/alert-channels', { body: input.body as Schemas['AlertChannelCreate'] }))
        : unwrap(api.PATCH('/alert-channels/{id}', { params: { path: { id: input.id } }, body: input.body as Schemas['AlertChannelUpdate'] })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }),
  });
}

/** A test send's result is the answer itself (delivered, or why not); the channel's lastError may change. */
export function useTestChannel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.POST('/alert-channels/{id}/test', { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }),
  });
}
