import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALLOWED_ATTRIBUTES, ALLOWED_TAGS, escapeHtml, markdownToText, renderMarkdown, sanitizeTenantHtml, singleLine } from './sanitize.js';

/** Every tag of the output with its attributes, read the lenient way a browser would. */
function tagsOf(html: string): { name: string; attributes: { name: string; value: string }[] }[] {
  return [...html.matchAll(/<\/?([a-zA-Z][^\s/>]*)([^>]*)>/g)].map((match) => ({
    name: match[1]!.toLowerCase(),
    attributes: [...(match[2] ?? '').matchAll(/([^\s"'=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)].map((a) => ({
      name: a[1]!.toLowerCase(),
      value: (a[2] ?? a[3] ?? a[4] ?? '').replace(/&amp;/g, '&'),
    })),
  }));
}

/** The claim of the module, checked on any output: only allowlisted markup survives. */
function expectInert(html: string): void {
  expect(html).not.toMatch(/<\s*(script|style|iframe|svg|math|object|embed|form|input|meta|link|base|frame|template)/i);
  for (const tag of tagsOf(html)) {
    expect(ALLOWED_TAGS).toContain(tag.name);
    for (const attribute of tag.attributes) {
      expect(ALLOWED_ATTRIBUTES[tag.name] ?? []).toContain(attribute.name);
      expect(attribute.name).not.toMatch(/^on|^style$|^srcdoc$|^formaction$/);
      if (attribute.name === 'href') expect(attribute.value).toMatch(/^(https?:\/\/|mailto:)/i);
      if (attribute.name === 'src') expect(attribute.value).toMatch(/^https:\/\//i);
    }
  }
  // Nothing outside a tag can open one: text is escaped.
  expect(html.replace(/<\/?[a-zA-Z][^>]*>/g, '')).not.toMatch(/</);
}

const HOSTILE_HTML = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=https://evil.example/x.js></SCRIPT>',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<img src=x onerror=alert(1)>',
  '<img src="https://ok.example/a.png" onerror="alert(1)">',
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<iframe src="https://evil.example"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<object data="javascript:alert(1)"></object><embed src="javascript:alert(1)">',
  '<a href="javascript:alert(1)">x</a>',
  '<a href="JaVaScRiPt:alert(1)">x</a>',
  '<a href=" javascript:alert(1)">x</a>',
  '<a href="java\tscript:alert(1)">x</a>',
  '<a href="&#106;avascript:alert(1)">x</a>',
  '<a href="&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1)">x</a>',
  '<a href="jav&#x09;ascript:alert(1)">x</a>',
  '<a href="vbscript:msgbox(1)">x</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
  '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">',
  '<img src="http://insecure.example/a.png">',
  '<a href="//evil.example">x</a>',
  '<p style="background:url(javascript:alert(1))">x</p>',
  '<div style="position:fixed;inset:0">spoof</div>',
  '<style>body{display:none}</style>',
  '<form action="https://evil.example"><input name=p><button>Go</button></form>',
  '<meta http-equiv="refresh" content="0;url=https://evil.example">',
  '<base href="https://evil.example/"><link rel=stylesheet href=https://evil.example/x.css>',
  '<a id="config" name="config" class="status-ok" href="https://ok.example">clobber</a>',
  '<details open ontoggle=alert(1)>',
  '<p onclick="alert(1)" onmouseover=alert(1)>x</p>',
  '<!--<script>alert(1)</script>-->',
  '<![CDATA[<script>alert(1)</script>]]>',
  '&lt;script&gt;alert(1)&lt;/script&gt;',
  '<a href="https://ok.example" target="_blank" rel="opener">ok</a>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
  '<template><script>alert(1)</script></template>',
];

describe('sanitizeTenantHtml', () => {
  it.each(HOSTILE_HTML)('leaves nothing executable of %s', (html) => {
    const clean = sanitizeTenantHtml(html);
    expectInert(clean);
    expect(clean).not.toMatch(/javascript:|vbscript:|data:|onerror|onload|onclick|ontoggle|style=|<script/i);
  });

  it('keeps the harmless markup a header or footer needs', () => {
    const html =
      '<p>Questions? <a href="mailto:ops@example.com">Mail us</a> or see <a href="https://example.com/sla">our SLA</a>.</p><img src="https://cdn.example.com/logo.png" alt="Logo">';
    expect(sanitizeTenantHtml(html)).toBe(
      '<p>Questions? <a href="mailto:ops@example.com" rel="nofollow noopener noreferrer">Mail us</a> or see <a href="https://example.com/sla" rel="nofollow noopener noreferrer">our SLA</a>.</p><img src="https://cdn.example.com/logo.png" alt="Logo" />',
    );
  });

  it('reads back as itself after nesting the parser leaves open (a <p> inside a <p>)', () => {
    const once = sanitizeTenantHtml('<p><scr<script>ipt>alert(1)</scr</script>ipt><p>');
    expectInert(once);
    expect(sanitizeTenantHtml(once)).toBe(once);
  });

  it('is idempotent and inert for any mix of hostile fragments', () => {
    const fragment = fc.oneof(
      fc.constantFrom(...HOSTILE_HTML, '<p>', '</p>', '<a href="https://ok.example">', '</a>', '"', "'", '<', '>', '&', '&#', 'javascript:', ' on', '='),
      fc.string({ maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 12 }), (parts) => {
        const once = sanitizeTenantHtml(parts.join(''));
        expectInert(once);
        expect(sanitizeTenantHtml(once)).toBe(once);
      }),
      { numRuns: 300 },
    );
  });
});

describe('renderMarkdown', () => {
  const HOSTILE_MARKDOWN = [
    '[x](javascript:alert(1))',
    '[x](JAVASCRIPT:alert(1))',
    '[x](<javascript:alert(1)>)',
    '[x](&#106;avascript:alert(1))',
    '[x](data:text/html,<script>alert(1)</script>)',
    '[x][ref]\n\n[ref]: javascript:alert(1)',
    '<javascript:alert(1)>',
    '![x](javascript:alert(1))',
    '![x](http://insecure.example/a.png)',
    'Hello <script>alert(1)</script> world',
    '<img src=x onerror=alert(1)>',
    '<iframe src="https://evil.example"></iframe>',
    '<svg onload=alert(1)>',
    '<p style="color:red">styled</p>',
    '```html\n<script>alert(1)</script>\n```',
    '`<script>alert(1)</script>`',
    '[click](https://ok.example "title\\" onmouseover=\\"alert(1)")',
  ];

  it.each(HOSTILE_MARKDOWN)('leaves nothing executable of %s', (source) => {
    const html = renderMarkdown(source);
    expectInert(html);
    expect(html).not.toMatch(/href="(?!https?:|mailto:)|src="(?!https:)|onerror=|onload=|style=|<script|<iframe|<svg/i);
  });

  it('renders ordinary Markdown: emphasis, lists, links, code, line breaks', () => {
    const html = renderMarkdown('**Resolved.** See [the report](https://example.com/r).\nNext line\n\n- one\n- two\n\n`code`');
    expect(html).toContain('<strong>Resolved.</strong>');
    expect(html).toContain('<a href="https://example.com/r" rel="nofollow noopener noreferrer">the report</a>');
    expect(html).toContain('<br />');
    expect(html).toContain('<li>one</li>');
    expect(html).toContain('<code>code</code>');
  });

  it('is inert for any Markdown, and its output is stable under sanitising again', () => {
    const piece = fc.oneof(
      fc.constantFrom('[a](', ')', '![b](', '<', '>', 'javascript:', 'data:', 'https://ok.example', '\n', '`', '*', '<script>', '" onerror="'),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const html = renderMarkdown(parts.join(''));
        expectInert(html);
        expect(sanitizeTenantHtml(html)).toBe(html);
      }),
      { numRuns: 300 },
    );
  });
});

describe('plain text', () => {
  it('escapes text for HTML', () => {
    expect(escapeHtml(`<img src=x onerror="alert('1')"> & co`)).toBe('&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt; &amp; co');
  });

  it('keeps titles on one line so they cannot inject headers or stream fields', () => {
    expect(singleLine('Outage\r\nBcc: victim@example.com\n\ndata: {"x":1}')).toBe('Outage Bcc: victim@example.com data: {"x":1}');
    expect(singleLine('x'.repeat(300))).toHaveLength(255);
    expect(singleLine('Invoice\u202Egpj.exe')).toBe('Invoice gpj.exe');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(singleLine(text)).not.toMatch(/[\r\n\u2028\u2029]/);
      }),
    );
  });

  it('turns Markdown into plain text without markup', () => {
    expect(markdownToText('**Fixed** <script>alert(1)</script> in [v2](https://example.com) & done')).toBe('Fixed  in v2 & done');
  });
});
