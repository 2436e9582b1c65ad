import { discord } from './discord.js';
import { ntfy } from './ntfy.js';
import { teams } from './teams.js';
import { telegram } from './telegram.js';
import type { HttpChannel } from './types.js';

/**
 * The channel types delivered by one HTTP POST each, one file per type. EMAIL, SLACK and
 * WEBHOOK predate this table and stay in channels.ts and channelsDelivery.ts.
 */
export const HTTP_CHANNELS = { TEAMS: teams, DISCORD: discord, NTFY: ntfy, TELEGRAM: telegram } as const;
export type HttpChannelType = keyof typeof HTTP_CHANNELS;

export const isHttpChannelType = (type: string): type is HttpChannelType => Object.hasOwn(HTTP_CHANNELS, type);

/** The table's entries with their config type erased: each entry validates its own config before use. */
export const httpChannel = (type: HttpChannelType): HttpChannel<unknown, unknown> => HTTP_CHANNELS[type] as HttpChannel<unknown, unknown>;
