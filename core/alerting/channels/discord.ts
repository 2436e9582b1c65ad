import { z } from '@hono/zod-openapi';
import { plainText, singleLine } from '../../statuspages/render/sanitize.js';
import { actionLinks, clip, credentialUrl, showUrl, urgencyOf, type Urgency } from './common.js';
import type { HttpChannel, RenderableMessage } from './types.js';

/** A Discord channel webhook (Server Settings, Integrations, Webhooks): its path carries the token. */
export const DiscordChannelConfig = z.strictObject({ url: credentialUrl() }).openapi('DiscordChannelConfig');
type DiscordConfig = z.infer<typeof DiscordChannelConfig>;

export const DiscordChannelView = z.object({ url: z.string().describe('Whole for ADMIN and OWNER; below, the origin and the last four characters') });

const COLOR: Record<Urgency, number> = { P1: 0xd92d20, P2: 0xf79009, P3: 0xfdb022, P4: 0x2e90fa, resolved: 0x12b76a, info: 0x667085 };

/**
 * Discord's Markdown takes a backslash before any ASCII punctuation as that character, literally
 * (its escape rule, as CommonMark's section 2.4): escaping every one leaves no emphasis, masked
 * link (`[x](url)`), heading, quote, spoiler, mention (`<@id>`, `@everyone`) or channel link in
 * tenant text, and the text reads as typed. Mentions could not ping from an embed anyway, and
 * `allowed_mentions` says so again.
 */
export const discordEscape = (text: string): string => text.replace(/[!-/:-@[-`{-~]/g, '\\$&');

/** The webhook body: one embed, nothing in `content`, no mention parsed (discord.com/developers/docs/resources/webhook). */
export function discordPayload(message: RenderableMessage) {
  const urgency = urgencyOf(message);
  const links = actionLinks(message);
  // Limits (title 256, description 4096) hold for the escaped text: each character at most doubles.
  const description = discordEscape(plainText(clip(message.text, 1900)));
  const severity = typeof message.data.severity === 'string' ? message.data.severity : undefined;
  return {
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title: discordEscape(singleLine(message.subject, 120)),
        description,
        color: COLOR[urgency],
        // The title links to the first action's page, which only shows a button: opening it changes nothing.
        ...(links[0] ? { url: links[0].url } : {}),
        fields: [
          ...(severity ? [{ name: 'Severity', value: discordEscape(severity), inline: true }] : []),
          { name: 'Event', value: discordEscape(message.type), inline: true },
          ...(links.length > 0 ? [{ name: 'Act on it', value: links.map((link) => `[${link.label}](${link.url})`).join(' · '), inline: false }] : []),
        ],
      },
    ],
  };
}

export const discord: HttpChannel<DiscordConfig, z.infer<typeof DiscordChannelView>> = {
  config: DiscordChannelConfig,
  show: (item, whole) => ({ url: showUrl(item.url, whole) }),
  store: (config) => ({ url: config.url }),
  destinations: (config) => [{ path: 'config.url', url: config.url }],
  request: (item, message) => ({ url: item.url ?? '', headers: { 'content-type': 'application/json' }, body: JSON.stringify(discordPayload(message)) }),
};
