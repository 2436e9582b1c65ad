import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasFeedparser, parseFeeds } from '../../../test/support/feedparser.js';
import { singleLine } from '../render/sanitize.js';
import type { PageSnapshot, SnapshotAnnouncement } from '../store/snapshot.js';
import { atomFeed, entryTitle, rssFeed } from './feeds.js';

/**
 * Hostile titles and Markdown never break a feed: every generated feed parses in feedparser with
 * bozo 0, keeps one entry per announcement in order, the reader shows each title as typed (no
 * markup rendered), and no script, handler or `javascript:` link reaches the content.
 * All cases of a run go through one feedparser process.
 */

const NOW = '2026-03-01T12:00:00.000Z';
const config = { publicUrl: 'https://status.example.com' };
const links = { rss: 'https://status.example.com/api/public/status/acme/feed.rss', atom: 'https://status.example.com/api/public/status/acme/feed.atom' };

const HOSTILE = [
  '<script>alert(1)</script>',
  ']]>',
  ']]]]><![CDATA[>',
  '<![CDATA[',
  '&amp;',
  '&lt;i&gt;',
  '&#0;',
  '&',
  '<',
  '>',
  '"',
  "'",
  '<b>bold</b>',
  '</title>',
  '</entry>',
  '<img src=x onerror=alert(1)>',
  '[x](javascript:alert(1))',
  '<a href="javascript:alert(1)">x</a>',
  '<iframe src="https://evil.example"></iframe>',
  '<svg onload=alert(1)>',
  '\u0000',
  '\u0001',
  '\u0008',
  '\u000b',
  '\u001f',
  '\u007f',
  '\u0085',
  '\ufffe',
  '\uffff',
  '\ud800',
  '\udfff',
  '\u202e',
  '\u2028',
  '\ue000',
  '\n',
  '\r\n',
  '\t',
  ' ',
  'é',
  '😀',
  '漢字',
  '**bold**',
  '`code ]]>`',
  '\n```\n]]> <script>\n```\n',
  '> quote',
  '# heading',
  '- item',
  '\\',
  '%00',
];
const hostile = fc.array(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'binary', maxLength: 12 })), { maxLength: 14 }).map((parts) => parts.join(''));
/** Titles from characters XML can carry, so what the reader shows is exactly the one-line title. */
const printable = fc
  .array(
    fc.oneof(fc.constantFrom('<b>x</b>', ']]>', '&amp;', '&', '<', '>', '"', "'", 'é', '😀', ' ', '<script>alert(1)</script>'), fc.string({ unit: 'grapheme', maxLength: 8 })),
    { maxLength: 10 },
  )
  .map((p) => p.join(''));

const announcement = (title: string, bodies: string[], i: number): SnapshotAnnouncement => ({
  id: i + 1,
  publicId: `01jtestannouncement${String(i).padStart(7, '0')}`,
  title,
  status: 'INVESTIGATING',
  impact: 'MINOR',
  componentIds: [],
  scheduledFor: null,
  scheduledUntil: null,
  resolvedAt: null,
  createdAt: NOW,
  updatedAt: NOW,
  updates: bodies.map((body, j) => ({ id: j + 1, status: j === 0 ? 'INVESTIGATING' : null, body, createdAt: NOW })),
});

const snapshotNamed = (name: string): PageSnapshot => ({
  page: {
    id: 1,
    workspaceId: 1,
    name,
    slug: 'acme',
    visibility: 'PUBLIC',
    passwordVersion: 1,
    enabled: true,
    customDomain: null,
    customDomainVerifiedAt: null,
    logoUrl: null,
    faviconUrl: null,
    primaryColor: null,
    backgroundColor: null,
    headerHtml: null,
    footerHtml: null,
    showUptimeHistory: true,
    uptimeHistoryDays: 90,
    showIncidentHistory: true,
  },
  components: [],
  checks: [],
  dependenciesDown: [],
  maintenance: [],
  announcements: [],
  uptime: {},
  statuses: { overall: 'OPERATIONAL', components: [] },
  builtAt: NOW,
});

const caseOf = (title: fc.Arbitrary<string>) =>
  fc.record({ name: hostile, items: fc.array(fc.record({ title, bodies: fc.array(hostile, { minLength: 1, maxLength: 3 }) }), { minLength: 1, maxLength: 4 }) });

function check(cases: { name: string; items: { title: string; bodies: string[] }[] }[], expectedTitle: (title: string) => string): void {
  const built = cases.map(({ name, items }) => {
    const announcements = items.map((item, i) => announcement(item.title, item.bodies, i));
    const snapshot = snapshotNamed(name);
    return { announcements, texts: [rssFeed(config, snapshot, announcements, links), atomFeed(config, snapshot, announcements, links)] };
  });
  const parsed = parseFeeds(built.flatMap((b) => b.texts));
  built.forEach(({ announcements, texts }, i) => {
    for (const [k, feed] of [parsed[2 * i], parsed[2 * i + 1]].entries()) {
      if (!feed) throw new Error('feedparser returned too few feeds');
      const context = texts[k] ?? '';
      expect(feed.bozo, `${feed.bozoException ?? ''}\n${context}`).toBe(0);
      expect(feed.version).toBe(k === 0 ? 'rss20' : 'atom10');
      expect(feed.feed.link).toBe('https://status.example.com/status/acme');
      expect(feed.entries.map((e) => e.id.replace('urn:vigil:announcement:', ''))).toEqual(announcements.map((a) => a.publicId));
      expect(feed.entries.map((e) => e.link)).toEqual(announcements.map(() => 'https://status.example.com/status/acme'));
      expect(
        feed.entries.map((e) => e.titleShown),
        context,
      ).toEqual(announcements.map((a) => expectedTitle(a.title)));
      for (const entry of feed.entries) {
        const content = entry.content.join('');
        // Live markup only: the same words as escaped text are harmless and may stay.
        expect(content).not.toMatch(/<(?:script|iframe|svg|style|object|embed)\b/i);
        expect(content).not.toMatch(/<[^>]*\son\w+\s*=/i);
        expect(content).not.toMatch(/<[^>]*(?:href|src)\s*=\s*["']?\s*javascript:/i);
      }
    }
  });
}

describe.skipIf(!hasFeedparser)('feeds with hostile input, read by feedparser', () => {
  it('any title, page name and Markdown: well-formed, entries and links right, titles shown as text', { timeout: 120_000 }, () => {
    const cases = fc.sample(caseOf(hostile), { numRuns: 150, seed: 16 });
    check(cases, (title) => entryTitle(title));
  });

  it('a title of characters XML can carry is shown exactly as its one-line form', { timeout: 120_000 }, () => {
    const cases = fc.sample(caseOf(printable), { numRuns: 150, seed: 61 });
    check(cases, (title) => singleLine(title));
  });

  it('a random run, not only the fixed seeds', { timeout: 120_000 }, () => {
    check(fc.sample(caseOf(hostile), 60), (title) => entryTitle(title));
  });
});
