import { Marked } from 'marked';
import sanitizeHtml from 'sanitize-html';

/**
 * Tenant markup on public pages (no tenant string reaches a page unescaped): `headerHtml`,
 * `footerHtml` and announcement Markdown go through one allowlist, on save and again on render,
 * so a row written before a rule tightened is still cleaned. Sanitising twice changes nothing.
 *
 * The allowlist is the whole policy: no script, no event handlers, no `style` (attribute or
 * element), no frames, forms, SVG or MathML, no `id`/`class` (DOM clobbering, spoofing the page's
 * own UI); links http, https or mailto only; images https only (the CSP's `img-src`).
 */

const TEXT_TAGS = [
  'p',
  'br',
  'hr',
  'strong',
  'b',
  'em',
  'i',
  'u',
  's',
  'del',
  'ins',
  'mark',
  'small',
  'sub',
  'sup',
  'code',
  'pre',
  'kbd',
  'blockquote',
  'q',
  'abbr',
  'time',
  'span',
  'div',
];
const BLOCK_TAGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'figure', 'figcaption'];
const TABLE_TAGS = ['table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td'];
export const ALLOWED_TAGS: readonly string[] = [...TEXT_TAGS, ...BLOCK_TAGS, ...TABLE_TAGS, 'a', 'img'];

export const ALLOWED_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  a: ['href', 'title', 'rel'],
  img: ['src', 'alt', 'title', 'width', 'height'],
  abbr: ['title'],
  time: ['datetime'],
  ol: ['start'],
  th: ['colspan', 'rowspan', 'scope'],
  td: ['colspan', 'rowspan'],
};

// The library checks schemes too; these prefixes are the positive rule on the decoded value, so
// a relative, protocol-relative or oddly spelled URL is dropped rather than judged.
const LINK = /^(?:https?:\/\/|mailto:)/i;
const IMAGE = /^https:\/\//i;

const keepUrl = (value: string | undefined, rule: RegExp): string | undefined => {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return rule.test(trimmed) && URL.canParse(trimmed) ? trimmed : undefined;
};

function withoutUndefined(attribs: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(attribs).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...ALLOWED_TAGS],
  allowedAttributes: Object.fromEntries(Object.entries(ALLOWED_ATTRIBUTES).map(([tag, names]) => [tag, [...names]])),
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['https'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: false,
  allowedStyles: {},
  disallowedTagsMode: 'discard',
  // Their text is code or UI, never content: drop it with the tag.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object', 'embed', 'svg', 'math', 'template', 'title', 'select', 'button'],
  transformTags: {
    a: (tagName, attribs) => ({
      tagName,
      attribs: withoutUndefined({ ...attribs, href: keepUrl(attribs.href, LINK), rel: 'nofollow noopener noreferrer' }),
    }),
    img: (tagName, attribs) => ({ tagName, attribs: withoutUndefined({ ...attribs, src: keepUrl(attribs.src, IMAGE) }) }),
  },
  // An image whose source was refused shows nothing useful; drop it.
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
};

/** `headerHtml` / `footerHtml`: cleaned markup, safe to place in the page as HTML. */
export function sanitizeTenantHtml(html: string): string {
  // The parser leaves a <p> opened inside an open <p> nested, which the next parse (and a browser)
  // closes instead: a pass or two more reach the form that reads back as itself, so text cleaned
  // again (an edit saved twice) does not change. Every pass is the full allowlist.
  let cleaned = sanitizeHtml(html, OPTIONS);
  for (let pass = 0; pass < 3; pass++) {
    const again = sanitizeHtml(cleaned, OPTIONS);
    if (again === cleaned) break;
    cleaned = again;
  }
  return cleaned;
}

// One private instance: global `marked.use()` elsewhere can never loosen this renderer.
const markdown = new Marked({ gfm: true, breaks: true });

/** Announcement Markdown to cleaned HTML; raw HTML inside the Markdown goes through the same allowlist. */
export function renderMarkdown(source: string): string {
  return sanitizeTenantHtml(markdown.parse(source, { async: false }));
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** For tenant text placed in HTML text or a quoted attribute outside JSX (e-mail bodies). */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);

/**
 * For tenant text in a one-line slot (e-mail subject, feed title, SSE field): control characters
 * and line breaks become spaces, so a title can never start a new header or event field; bidi
 * overrides go too, so a title cannot render reversed in a mail client.
 */
export function singleLine(text: string, maxLength = 255): string {
  // eslint-disable-next-line no-control-regex
  const flat = text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length <= maxLength ? flat : `${flat.slice(0, maxLength - 1)}…`;
}

/**
 * For tenant text in a multi-line plain-text slot (an e-mail body, a chat message): line breaks
 * stay (as \n), every other control character and the bidi overrides go, so the text cannot
 * render reversed or carry a terminal escape.
 */
export function plainText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, ' ');
}

/** Announcement Markdown as plain text (feed summaries, text e-mail): rendered, cleaned, tags dropped. */
export function markdownToText(source: string): string {
  const html = renderMarkdown(source);
  return sanitizeHtml(html, { allowedTags: [], allowedAttributes: {}, nonTextTags: OPTIONS.nonTextTags ?? [] })
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}
