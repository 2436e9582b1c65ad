import { describe, expect, it } from 'vitest';
import { addressedTo, chatConfig, chatInertProblems, shapeProblems, type ChatType } from '../../../test/support/chatChannels.js';
import { HOSTILE_STRINGS } from '../../../test/support/hostile.js';
import type { RecordedRequest } from '../../../test/support/outbound.js';
import type { AlertChannelItem } from '../../store/entities/alertChannel.js';
import { HTTP_CHANNELS, httpChannel } from './index.js';
import type { RenderableMessage } from './types.js';

/**
 * Each format's renderer against the hostile table, without the store or a socket (the
 * end-to-end run is hostileChatChannels.test.ts), and the checker itself against renderings
 * that do not escape: it must see the injection, or the end-to-end run proves nothing.
 */
const channel = (type: ChatType): AlertChannelItem => ({
  channelId: 1,
  workspaceId: 1,
  name: 'n',
  type,
  enabled: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...httpChannel(type).store(chatConfig(type, 7)),
});

const requestOf = (type: ChatType, message: RenderableMessage): RecordedRequest => {
  const request = HTTP_CHANNELS[type].request(channel(type), message);
  return { method: 'POST', url: new URL(request.url).pathname, headers: request.headers, body: request.body };
};

const messageWith = (value: string): RenderableMessage => ({
  type: 'incident.opened',
  subject: `[P1] Incident opened: ${value}`,
  text: `${value}\n\nSeverity: P1\n\n${value}`,
  data: { severity: 'P1' },
});

const TYPES: ChatType[] = ['TEAMS', 'DISCORD', 'NTFY', 'TELEGRAM'];

describe('chat and push formats', () => {
  it('render every hostile string inert and readable, in the shape each provider documents', () => {
    const problems = TYPES.flatMap((type) =>
      HOSTILE_STRINGS.flatMap((hostile) => {
        const request = requestOf(type, messageWith(hostile.value));
        return [...shapeProblems(request), ...chatInertProblems(request, hostile)].map((p) => `${type} / ${hostile.name}: ${p}`);
      }),
    );
    expect(problems).toEqual([]);
  });

  it('the checker sees what an unescaped rendering lets through', () => {
    const ping = HOSTILE_STRINGS.find((h) => h.name === 'Slack user mention');
    const link = HOSTILE_STRINGS.find((h) => h.name === 'Slack disguised link');
    if (!ping || !link) throw new Error('table changed');
    const raw = (type: ChatType, body: Record<string, unknown>): RecordedRequest => {
      const base = requestOf(type, messageWith('x'));
      return { ...base, body: JSON.stringify({ ...JSON.parse(base.body), ...body }) };
    };
    expect(chatInertProblems(raw('DISCORD', { embeds: [{ title: 't', description: `[click](http://evil.example) ${ping.value}` }] }), ping)).toContain(
      'description: an unescaped Markdown or mention character',
    );
    expect(chatInertProblems(raw('DISCORD', { allowed_mentions: undefined }), ping, false)).toContain('mentions may be parsed');
    expect(chatInertProblems(raw('TELEGRAM', { text: `<b>s</b>\n\n${link.value}` }), link)).toContain('a raw < or > (HTML markup)');
    expect(
      chatInertProblems(
        raw('TEAMS', { attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: { body: [{ type: 'TextBlock', text: link.value }] } }] }),
        link,
      ),
    ).toContain('a body element other than a RichTextBlock (TextBlocks render Markdown)');
    expect(chatInertProblems(raw('NTFY', { markdown: true }), link, false)).toContain('Markdown asked for');
    expect(addressedTo(requestOf('NTFY', messageWith('x')))).toEqual({ type: 'NTFY', n: '7' });
  });
});
