import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * A real feed reader for the feed tests: Debian's `python3-feedparser` (the parser behind many
 * readers). `VIGIL_PYTHON` picks the interpreter; the default is Debian's `/usr/bin/python3`
 * because a `python3` on PATH may be a pyenv without the package. Several feeds go through one
 * interpreter start, so a property test costs one process, not one per case.
 */
export const PYTHON = process.env.VIGIL_PYTHON ?? '/usr/bin/python3';

function probe(): boolean {
  if (!existsSync(PYTHON)) return false;
  try {
    execFileSync(PYTHON, ['-c', 'import feedparser'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
export const hasFeedparser = probe();
if (!hasFeedparser) console.warn(`feed reader tests skipped: no feedparser for ${PYTHON} (apt-get install python3-feedparser, or set VIGIL_PYTHON)`);

export type ParsedEntry = {
  id: string;
  title: string;
  titleType: string;
  /** The title as a reader shows it: HTML rendered, so a tag that survived would be missing here. */
  titleShown: string;
  link: string;
  links: { rel: string; href: string }[];
  content: string[];
  updated: string | null;
  published: string | null;
};
export type ParsedFeed = {
  bozo: number;
  bozoException: string | null;
  version: string;
  feed: { title: string; link: string; links: { rel: string; href: string }[] };
  entries: ParsedEntry[];
};

const SCRIPT = `
import html, json, re, sys, feedparser
def shown(detail):
    # What a reader displays: HTML is rendered (tags do not show), plain text as it is.
    value = detail.get('value', '')
    return html.unescape(re.sub(r'<[^>]*>', '', value)) if detail.get('type') in ('text/html', 'application/xhtml+xml') else value
out = []
for text in json.load(sys.stdin):
    d = feedparser.parse(text.encode('utf-8'))
    links = lambda x: [{'rel': l.get('rel', ''), 'href': l.get('href', '')} for l in x.get('links', [])]
    out.append({
        'bozo': int(bool(d.bozo)),
        'bozoException': str(d.get('bozo_exception')) if d.bozo else None,
        'version': d.version,
        'feed': {'title': d.feed.get('title', ''), 'link': d.feed.get('link', ''), 'links': links(d.feed)},
        'entries': [{
            'id': e.get('id', ''), 'title': e.get('title', ''), 'titleType': e.get('title_detail', {}).get('type', ''), 'titleShown': shown(e.get('title_detail', {})), 'link': e.get('link', ''), 'links': links(e),
            'content': [c.get('value', '') for c in e.get('content', [])],
            'updated': e.get('updated'), 'published': e.get('published'),
        } for e in d.entries],
    })
json.dump(out, sys.stdout)
`;

export function parseFeeds(texts: string[]): ParsedFeed[] {
  const output = execFileSync(PYTHON, ['-c', SCRIPT], { input: JSON.stringify(texts), maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(output.toString('utf8')) as ParsedFeed[];
}
