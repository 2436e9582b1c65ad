import { Feed } from 'feed';
import type { Config } from '../../config.js';
import type { Deps } from '../../deps.js';
import { escapeHtml, renderMarkdown, singleLine } from '../render/sanitize.js';
import { listPageAnnouncements } from '../store/announcementStore.js';
import { snapshotAnnouncement, type PageSnapshot, type SnapshotAnnouncement } from '../store/snapshot.js';
import { pageUrlOf } from './summary.js';

/**
 * RSS 2.0 and Atom 1.0 of a page's announcements, built with `feed` (docs/guide/status-pages.md "Feeds, badge, widget and summary.json"):
 * one entry per announcement, guid its publicId, updated its last update, content its timeline
 * (newest first) as sanitised HTML, a link back to the HTML page.
 *
 * XML 1.0 cannot carry some characters at all, and the library's CDATA needs help (below); so
 * every tenant string is made XML-safe here. Entry titles go as HTML-escaped text (below).
 */

export const FEED_ENTRIES = 50;

// Characters XML 1.0 cannot carry (C0 controls but tab and line breaks, lone surrogates, U+FFFE/F).
const INVALID_XML = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
/**
 * The library ends a CDATA section at the second `]]>` of a string (it splits only the first), so
 * each `]]>` goes in as a private-use mark, and the finished XML gets the standard split
 * `]]]]><![CDATA[>` for every mark: the reader sees `]]>` again, in titles as in content. The mark
 * itself is removed from tenant text first, so only ours are replaced.
 */
const CDATA_END = '\uE000';
const CDATA_SPLIT = ']]]]><![CDATA[>';
const xmlSafe = (text: string): string => text.replace(INVALID_XML, '').replaceAll(CDATA_END, '');
const cdataSafe = (text: string): string => xmlSafe(text).replaceAll(']]>', CDATA_END);
const finish = (xml: string): string => xml.replaceAll(CDATA_END, CDATA_SPLIT);

/** The announcements a feed lists: newest activity first, at most FEED_ENTRIES. */
export async function feedAnnouncements(deps: Deps, snapshot: PageSnapshot): Promise<SnapshotAnnouncement[]> {
  // Without incident history only what the page itself shows (the snapshot's open ones): no read.
  if (!snapshot.page.showIncidentHistory) return newestFirst(snapshot.announcements).slice(0, FEED_ENTRIES);
  const items = (await listPageAnnouncements(deps, snapshot.page.id)).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || b.announcementId - a.announcementId);
  const result: SnapshotAnnouncement[] = [];
  for (const item of items.slice(0, FEED_ENTRIES)) result.push(await snapshotAnnouncement(deps, item));
  return result;
}

const newestFirst = (list: SnapshotAnnouncement[]): SnapshotAnnouncement[] => [...list].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || b.id - a.id);

const STATUS_WORDS: Record<string, string> = { INVESTIGATING: 'Investigating', IDENTIFIED: 'Identified', MONITORING: 'Monitoring', RESOLVED: 'Resolved' };

/** The timeline as HTML, newest entry first; each body rendered from Markdown and sanitised. */
export function timelineHtml(a: SnapshotAnnouncement): string {
  return [...a.updates]
    .reverse()
    .map((u) => {
      const heading = `<p><strong>${escapeHtml(u.status === null ? 'Update' : (STATUS_WORDS[u.status] ?? u.status))}</strong> <time datetime="${escapeHtml(u.createdAt)}">${escapeHtml(u.createdAt)}</time></p>`;
      return `${heading}\n${renderMarkdown(u.body).trim()}`;
    })
    .join('\n<hr>\n');
}

/** An entry's title as a reader should show it: one line, only characters XML can carry. */
export const entryTitle = (title: string): string => singleLine(xmlSafe(title));

export type FeedLinks = { rss: string; atom: string };
type FeedConfig = Pick<Config, 'publicUrl'>;

function buildFeed(config: FeedConfig, snapshot: PageSnapshot, announcements: SnapshotAnnouncement[], links: FeedLinks): Feed {
  const { page } = snapshot;
  const home = pageUrlOf(config, page.slug);
  // Channel title and description are XML text (escaped by the library), not CDATA.
  const name = singleLine(xmlSafe(page.name));
  const newest = announcements.reduce((latest, a) => (a.updatedAt > latest ? a.updatedAt : latest), snapshot.builtAt);
  const feed = new Feed({
    id: home,
    title: `${name} status`,
    description: `Announcements of ${name}`,
    link: home,
    updated: new Date(newest),
    generator: 'Vigil',
    feedLinks: { rss: links.rss, atom: links.atom },
  });
  for (const a of announcements) {
    const title = entryTitle(a.title);
    feed.addItem({
      // Atom declares the title `type="html"`, and RSS readers guess (feedparser renders a title
      // that looks like HTML): a title is text, so it goes as escaped HTML in both.
      title: cdataSafe(escapeHtml(title)),
      // RSS guid: the publicId. Atom ids must be IRIs: the publicId as a URN.
      id: `urn:vigil:announcement:${a.publicId}`,
      guid: a.publicId,
      link: home,
      date: new Date(a.updatedAt),
      published: new Date(a.createdAt),
      content: cdataSafe(timelineHtml(a)),
    });
  }
  return feed;
}

export function rssFeed(config: FeedConfig, snapshot: PageSnapshot, announcements: SnapshotAnnouncement[], links: FeedLinks): string {
  return finish(buildFeed(config, snapshot, announcements, links).rss2());
}

export function atomFeed(config: FeedConfig, snapshot: PageSnapshot, announcements: SnapshotAnnouncement[], links: FeedLinks): string {
  return finish(buildFeed(config, snapshot, announcements, links).atom1());
}
