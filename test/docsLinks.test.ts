import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { type Token, type Tokens, marked } from 'marked';
import { describe, expect, it } from 'vitest';

/*
 * The README is the front door and docs/ holds the rest, so a moved or renamed page must not leave
 * a dead link behind. Every relative link and image in README.md, bench/README.md and docs/**.md
 * must name a file or folder of the repository, and a `#anchor` must name a heading of the page it
 * points to (as GitHub makes heading ids). Links to other sites are not followed: no network.
 */

const ROOT = resolve(import.meta.dirname, '..');

function markdownFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(root, 'docs', name));
  return [join(root, 'README.md'), join(root, 'bench', 'README.md'), ...docs].filter((path) => existsSync(path));
}

/** The text a heading shows, without its inline markup (code spans, emphasis, link targets). */
function plainText(tokens: Token[] | undefined): string {
  return (tokens ?? []).map((token) => ('tokens' in token && token.tokens ? plainText(token.tokens) : 'text' in token ? String(token.text) : '')).join('');
}

/** GitHub's heading ids: lower case, punctuation dropped, each space a hyphen, repeats numbered. */
function anchorsOf(source: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  marked.walkTokens(marked.lexer(source), (token) => {
    if (token.type !== 'heading') return;
    const base = plainText((token as Tokens.Heading).tokens)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  });
  return anchors;
}

function linksOf(source: string): string[] {
  const hrefs: string[] = [];
  marked.walkTokens(marked.lexer(source), (token) => {
    if (token.type === 'link' || token.type === 'image') hrefs.push((token as Tokens.Link | Tokens.Image).href);
  });
  return hrefs;
}

const isExternal = (href: string) => /^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//');

/** Each broken link as `file: target (why)`, for the given Markdown files. */
function brokenLinks(root: string, files: string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    for (const href of linksOf(source)) {
      if (isExternal(href)) continue;
      const [pathPart, anchor] = href.split('#', 2) as [string, string | undefined];
      const target = pathPart === '' ? file : resolve(dirname(file), decodeURI(pathPart));
      const where = `${relative(root, file)}: ${href}`;
      if (!existsSync(target)) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (statSync(target).isDirectory() || !target.endsWith('.md')) {
        broken.push(`${where} (an anchor into something that is not a Markdown page)`);
        continue;
      }
      if (!anchorsOf(readFileSync(target, 'utf8')).has(decodeURIComponent(anchor))) broken.push(`${where} (no such heading)`);
    }
  }
  return broken;
}

describe('documentation links', () => {
  it('every relative link and anchor in README.md, bench/README.md and docs/ resolves', () => {
    const files = markdownFiles(ROOT);
    expect(files.map((file) => relative(ROOT, file))).toEqual(expect.arrayContaining(['README.md', 'bench/README.md', 'docs/operations.md']));
    expect(brokenLinks(ROOT, files)).toEqual([]);
  });

  it('reports a missing file, a missing heading and an anchor into a folder, and accepts the rest', () => {
    const root = mkdtempSync(join(tmpdir(), 'vigil-docs-'));
    try {
      writeFileSync(join(root, 'page.md'), '# A page\n\n## The wrapper: `vigil-run`\n\n## Notes\n\n## Notes\n');
      writeFileSync(
        join(root, 'README.md'),
        [
          '[ok](page.md) [ok](page.md#the-wrapper-vigil-run) [ok](page.md#notes-1) [ok](#top) [ok](https://example.com/x.md)',
          '![ok](page.md) [missing](gone.md) [bad anchor](page.md#nope) [into a folder](./#x)',
          '```sh',
          '[not a link in code](nowhere.md)',
          '```',
          '# Top',
        ].join('\n'),
      );
      expect(brokenLinks(root, [join(root, 'README.md')])).toEqual([
        'README.md: gone.md (no such file)',
        'README.md: page.md#nope (no such heading)',
        'README.md: ./#x (an anchor into something that is not a Markdown page)',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
