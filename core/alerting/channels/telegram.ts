import { z } from '@hono/zod-openapi';
import { escapeHtml, plainText, singleLine } from '../../statuspages/render/sanitize.js';
import { actionLinks, clip, credentialUrl, maskSecret } from './common.js';
import type { HttpChannel, RenderableMessage } from './types.js';

export const TELEGRAM_API_BASE = 'https://api.telegram.org';

/**
 * A bot's token (from @BotFather) and the chat it writes to: a numeric chat id (groups and
 * channels are negative) or a public channel's `@username`. `apiBaseUrl` points elsewhere than
 * api.telegram.org: a self-hosted Bot API server, or a test's receiver. The token travels in the
 * request path, so https only.
 */
export const TelegramChannelConfig = z
  .strictObject({
    botToken: z.string().regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, 'must be a bot token as @BotFather gives it (123456:ABC...)'),
    chatId: z.string().regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/, 'must be a numeric chat id or a public channel @username'),
    apiBaseUrl: credentialUrl()
      .refine((url) => !/[?#]/.test(url), 'must have no query or fragment')
      .optional()
      .describe(`The Bot API's base URL; default ${TELEGRAM_API_BASE}`),
  })
  .openapi('TelegramChannelConfig');
type TelegramConfig = z.infer<typeof TelegramChannelConfig>;

export const TelegramChannelView = z.object({
  botToken: z.string().describe('Whole for ADMIN and OWNER; below, its last four characters'),
  chatId: z.string(),
  apiBaseUrl: z.string(),
});

/**
 * `sendMessage` with `parse_mode: HTML` (core.telegram.org/bots/api#formatting-options): every
 * tenant string is HTML-escaped with the project's escaper (Telegram reads &lt; &gt; &amp;
 * &quot; and numeric entities such as &#39;), so only the bold tag around the subject is markup.
 * Links are inline keyboard buttons, never text: a tenant cannot place one.
 */
export function telegramPayload(chatId: string, message: RenderableMessage) {
  const links = actionLinks(message);
  // Telegram's limit is 4096 characters after entity parsing: the bounds are on the unescaped text.
  const text = `<b>${escapeHtml(singleLine(message.subject, 300))}</b>\n\n${escapeHtml(plainText(clip(message.text, 3500)))}`;
  return {
    chat_id: chatId,
    text,
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
    ...(links.length > 0 ? { reply_markup: { inline_keyboard: [links.map((link) => ({ text: link.label, url: link.url }))] } } : {}),
  };
}

/**
 * Telegram's flood control says how long to wait in the answer's JSON (`parameters.retry_after`,
 * core.telegram.org/bots/api#responseparameters); read when no `Retry-After` header says it.
 */
function retryAfterInBody(bodyText: string): number | null {
  try {
    const answer = JSON.parse(bodyText) as { parameters?: { retry_after?: unknown } };
    const seconds = answer.parameters?.retry_after;
    return typeof seconds === 'number' && Number.isSafeInteger(seconds) && seconds >= 0 ? seconds : null;
  } catch {
    return null;
  }
}

export const telegram: HttpChannel<TelegramConfig, z.infer<typeof TelegramChannelView>> = {
  config: TelegramChannelConfig,
  show: (item, whole) => ({
    botToken: whole ? (item.botToken ?? '') : maskSecret(item.botToken ?? ''),
    chatId: item.chatId ?? '',
    apiBaseUrl: item.apiBaseUrl ?? TELEGRAM_API_BASE,
  }),
  store: (config) => ({ botToken: config.botToken, chatId: config.chatId, apiBaseUrl: config.apiBaseUrl }),
  destinations: (config) => (config.apiBaseUrl ? [{ path: 'config.apiBaseUrl', url: config.apiBaseUrl }] : []),
  request: (item, message) => ({
    url: `${(item.apiBaseUrl ?? TELEGRAM_API_BASE).replace(/\/+$/, '')}/bot${item.botToken ?? ''}/sendMessage`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(telegramPayload(item.chatId ?? '', message)),
  }),
  retryAfterInBody,
};
