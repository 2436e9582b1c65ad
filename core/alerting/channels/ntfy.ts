import { z } from '@hono/zod-openapi';
import { plainText, singleLine } from '../../statuspages/render/sanitize.js';
import { actionLinks, clip, maskSecret, showUrl, urgencyOf, type Urgency } from './common.js';
import type { HttpChannel, RenderableMessage } from './types.js';

/** ntfy's topic names (docs.ntfy.sh/publish): letters, digits, `-` and `_`, at most 64. */
const TOPIC = /^[-_A-Za-z0-9]{1,64}$/;

/**
 * The topic URL as a subscriber uses it (`https://ntfy.sh/mytopic`, or a self-hosted server's,
 * under a path too): http allowed for a server on a network of its own, which the outbound guard
 * still judges. The access token, when the topic needs one, is sent as a Bearer token.
 */
export const NtfyChannelConfig = z
  .strictObject({
    url: z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .max(2048)
      .refine((url) => topicOf(url) !== null, 'must end in a topic name (letters, digits, - and _), with no query or fragment'),
    token: z
      .string()
      .regex(/^[\x21-\x7e]{1,256}$/, 'must be an ntfy access token (printable ASCII, no spaces)')
      .optional()
      .describe('An ntfy access token (tk_...) for a protected topic'),
  })
  .openapi('NtfyChannelConfig');
type NtfyConfig = z.infer<typeof NtfyChannelConfig>;

export const NtfyChannelView = z.object({
  url: z.string().describe('Whole for ADMIN and OWNER; below, the origin and the last four characters (a topic name is its own password on a public server)'),
  token: z.string().nullable().describe('Whole for ADMIN and OWNER; below, its last four characters; null without one'),
});

/** The server root a JSON publish goes to, and the topic it names; null when the URL names no topic. */
function topicOf(url: string): { root: string; topic: string } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.search !== '' || parsed.hash !== '') return null;
  const path = parsed.pathname.replace(/\/+$/, '');
  const cut = path.lastIndexOf('/');
  const topic = path.slice(cut + 1);
  if (!TOPIC.test(topic)) return null;
  return { root: `${parsed.origin}${path.slice(0, cut)}/`, topic };
}

/** ntfy's priorities: 5 (max/urgent) to 1 (min); 3 is its default. */
const PRIORITY: Record<Urgency, number> = { P1: 5, P2: 4, P3: 3, P4: 2, resolved: 3, info: 3 };
const TAGS: Record<Urgency, string> = { P1: 'rotating_light', P2: 'warning', P3: 'warning', P4: 'information_source', resolved: 'white_check_mark', info: 'information_source' };

/**
 * The JSON publish form (docs.ntfy.sh/publish, "Publish as JSON"): tenant text travels in a JSON
 * string, never in a header, so a line break cannot start a header of its own. ntfy renders
 * Markdown only when asked (`markdown: true`), which this body never does: the text is plain.
 */
export function ntfyPayload(topic: string, message: RenderableMessage) {
  const urgency = urgencyOf(message);
  const actions = actionLinks(message).map((link) => ({ action: 'view', label: link.label, url: link.url, clear: true }));
  return {
    topic,
    title: singleLine(message.subject, 250),
    message: plainText(clip(message.text, 3500)),
    priority: PRIORITY[urgency],
    tags: [TAGS[urgency]],
    ...(actions.length > 0 ? { actions } : {}),
  };
}

export const ntfy: HttpChannel<NtfyConfig, z.infer<typeof NtfyChannelView>> = {
  config: NtfyChannelConfig,
  show: (item, whole) => ({ url: showUrl(item.url, whole), token: item.accessToken === undefined ? null : whole ? item.accessToken : maskSecret(item.accessToken) }),
  store: (config) => ({ url: config.url, accessToken: config.token }),
  destinations: (config) => [{ path: 'config.url', url: config.url }],
  request: (item, message) => {
    const target = topicOf(item.url ?? '') ?? { root: item.url ?? '', topic: '' };
    return {
      url: target.root,
      headers: { 'content-type': 'application/json', ...(item.accessToken ? { authorization: `Bearer ${item.accessToken}` } : {}) },
      body: JSON.stringify(ntfyPayload(target.topic, message)),
    };
  },
};
