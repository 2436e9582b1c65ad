import type { z } from '@hono/zod-openapi';
import type { AlertChannelItem } from '../../store/entities/alertChannel.js';

/**
 * What a chat or push channel renders: the channel-neutral message (channelsDelivery.ts's
 * ChannelMessage, restated structurally so these files import nothing from the module that
 * imports them).
 */
export type RenderableMessage = {
  type: string;
  subject: string;
  text: string;
  data: Record<string, unknown>;
  actions?: { acknowledgeUrl?: string | undefined; resolveUrl?: string | undefined } | undefined;
};

/** One HTTP request a channel sends; channelsDelivery.ts sends it through the outbound guard. */
export type ChannelRequest = { url: string; headers: Record<string, string>; body: string };

/** The destination attributes a type stores on the channel item; every one it owns is named, undefined when absent. */
export type StoredDestination = Partial<
  Pick<AlertChannelItem, 'url' | 'accessToken' | 'botToken' | 'chatId' | 'apiBaseUrl' | 'userKey' | 'appToken' | 'routingKey' | 'phoneNumber'>
>;

/**
 * A channel type delivered by one HTTP POST: its config schema, how it is stored and shown,
 * which URLs it reaches (judged by the outbound guard at save time and on every send), and the
 * request it makes of a message, with every tenant string escaped for the provider's format.
 */
export type HttpChannel<Config, View = Record<string, string | null>> = {
  config: z.ZodType<Config>;
  /** The config as the API answers it: secrets whole from ADMIN up (`whole`), masked below. */
  show: (item: AlertChannelItem, whole: boolean) => View;
  store: (config: Config) => StoredDestination;
  /** The URLs the config names, with their path in the request body, for the save-time check. */
  destinations: (config: Config) => { path: string; url: string }[];
  request: (item: AlertChannelItem, message: RenderableMessage) => ChannelRequest;
  /** Seconds to wait that a provider says in its answer's body rather than in `Retry-After`. */
  retryAfterInBody?: (bodyText: string) => number | null;
};
