import { z } from '@hono/zod-openapi';
import { plainText, singleLine } from '../../statuspages/render/sanitize.js';
import { actionLinks, clip, credentialUrl, showUrl, urgencyOf, type Urgency } from './common.js';
import type { HttpChannel, RenderableMessage } from './types.js';

/** A Teams Workflows webhook ("Post to a channel when a webhook request is received"): its URL carries a signature. */
export const TeamsChannelConfig = z.strictObject({ url: credentialUrl() }).openapi('TeamsChannelConfig');
type TeamsConfig = z.infer<typeof TeamsChannelConfig>;

export const TeamsChannelView = z.object({ url: z.string().describe('Whole for ADMIN and OWNER; below, the origin and the last four characters') });

const COLOR: Record<Urgency, string> = { P1: 'Attention', P2: 'Attention', P3: 'Warning', P4: 'Accent', resolved: 'Good', info: 'Default' };

/**
 * Tenant text goes only into TextRuns. A TextBlock renders a Markdown subset (links, emphasis,
 * lists) with no escape the card schema defines; a TextRun is plain text by the schema
 * ("Markdown is not supported", adaptivecards.io, TextRun), so a tenant's `[click](http://evil)`
 * stays those characters. Mentions need an `msteams.entities` entry, which the card never has.
 */
const run = (text: string, extra: Record<string, string> = {}) => ({ type: 'RichTextBlock', inlines: [{ type: 'TextRun', text, ...extra }] });

/** The message as an Adaptive Card 1.4 attachment, the payload Workflows' Teams webhook trigger takes. */
export function teamsCard(message: RenderableMessage) {
  // One block per line (whether a TextRun keeps a line break is left to each client); a blank line spaces the next.
  const lines = plainText(clip(message.text, 3000)).split('\n');
  const blocks = lines.flatMap((line, n) => (line.trim() === '' ? [] : [{ ...run(line), spacing: n > 0 && lines[n - 1]?.trim() === '' ? 'Medium' : 'None' }]));
  const body = [run(singleLine(message.subject, 300), { weight: 'Bolder', size: 'Medium', color: COLOR[urgencyOf(message)] }), ...blocks];
  const actions = actionLinks(message).map((link) => ({ type: 'Action.OpenUrl', title: link.label, url: link.url }));
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          ...(actions.length > 0 ? { actions } : {}),
          msteams: { width: 'Full' },
        },
      },
    ],
  };
}

export const teams: HttpChannel<TeamsConfig, z.infer<typeof TeamsChannelView>> = {
  config: TeamsChannelConfig,
  show: (item, whole) => ({ url: showUrl(item.url, whole) }),
  store: (config) => ({ url: config.url }),
  destinations: (config) => [{ path: 'config.url', url: config.url }],
  request: (item, message) => ({ url: item.url ?? '', headers: { 'content-type': 'application/json' }, body: JSON.stringify(teamsCard(message)) }),
};
