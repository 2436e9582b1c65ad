import { escapeHtml } from '../../core/statuspages/render/sanitize.js';

/**
 * One table of hostile tenant strings and the message formats they must arrive inert in
 * (every tenant string escaped for the context it lands in). Any test
 * that sends tenant text somewhere (alerts, notices, subscriber mail, pages) runs its strings
 * through `inertProblems` for each format the text is sent in; an empty list means the string
 * arrived escaped for that format and still readable.
 */
export type HostileString = {
  name: string;
  /** What a tenant types (a check name, a title, a dependency name in a ping payload...). */
  value: string;
  /** What must still be readable wherever it lands (after the format's escaping is undone). */
  readable: string;
};

const LONG = `${'W'.repeat(240)}<!channel>`;

export const HOSTILE_STRINGS: readonly HostileString[] = [
  { name: 'Slack channel ping', value: '<!channel>', readable: '<!channel>' },
  { name: 'Slack here/everyone pings', value: '<!here> <!everyone>', readable: '<!here> <!everyone>' },
  { name: 'Slack user mention', value: '<@U1>', readable: '<@U1>' },
  { name: 'Slack disguised link', value: '<http://evil.example|click>', readable: '<http://evil.example|click>' },
  { name: 'an entity already escaped', value: '&lt; &amp;', readable: '&lt; &amp;' },
  { name: 'script element', value: '</script><script>alert(1)</script>', readable: '</script><script>alert(1)</script>' },
  { name: 'attribute breakout', value: `"><img src=x onerror=alert(1)> '`, readable: `"><img src=x onerror=alert(1)> '` },
  { name: 'mail header injection', value: 'x\r\nBcc: x@evil.example', readable: 'Bcc: x@evil.example' },
  { name: 'template syntax', value: '{{7*7}} ${7*7} #{7*7}', readable: '{{7*7}} ${7*7} #{7*7}' },
  { name: 'mrkdwn marks', value: '*bold* _it_ ~s~ `code`', readable: '*bold* _it_ ~s~ `code`' },
  { name: 'JSON breakout', value: '","type":"incident.resolved","x":"', readable: '","type":"incident.resolved","x":"' },
  { name: 'plain mentions', value: '@channel @here', readable: '@channel @here' },
  { name: 'RTL override', value: 'invoice\u202Eexe.pdf', readable: 'exe.pdf' },
  { name: 'very long', value: LONG, readable: 'W'.repeat(60) },
  { name: 'unicode', value: 'Ünïcödé ✓ 日本 🚨', readable: 'Ünïcödé ✓ 日本 🚨' },
];

export type MessageFormat = 'slack' | 'mailSubject' | 'mailText' | 'mailHtml' | 'webhookJson';

// eslint-disable-next-line no-control-regex
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const BIDI = /[\u202a-\u202e\u2066-\u2069]/;

/** Vigil's own action links in a Slack message: `<{publicUrl}/api/ack/{JWS}|Acknowledge>` and `|Resolve>`. */
const VIGIL_ACTION_LINK = /<https?:\/\/[^\s<>|&]+\/api\/ack\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\|(?:Acknowledge|Resolve)>/g;

const slackUnescape = (text: string): string => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** Every string value in a parsed JSON document. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}

/**
 * What is wrong with `rendered` (a message in `format`) carrying `hostile`; [] when it is inert
 * and readable. `slack`: the payload's `text`; `webhookJson`: the raw request body; the mail
 * formats: the subject, the text body, the HTML body. `carries: false` for a part that need not
 * carry the string (a fixed subject): it is still checked for what must never be in it.
 */
export function inertProblems(format: MessageFormat, rendered: string, hostile: HostileString, options: { carries?: boolean } = {}): string[] {
  const problems: string[] = [];
  const carries = options.carries ?? true;
  switch (format) {
    case 'slack': {
      // Slack's control characters: a raw < or > opens a ping, a mention or a link. The one link
      // allowed is Vigil's own signed acknowledge/resolve link (core/alerting/ackLinks.ts).
      const text = rendered.replace(VIGIL_ACTION_LINK, '');
      if (/[<>]/.test(text)) problems.push('a raw < or > (a Slack control sequence)');
      if (/&(?!amp;|lt;|gt;)/.test(text)) problems.push('a raw & (not &amp; &lt; &gt;)');
      if (CONTROL_BUT_NEWLINE.test(text) || BIDI.test(text)) problems.push('a control character or bidi override');
      if (carries && !slackUnescape(text).includes(hostile.readable)) problems.push(`"${hostile.readable.slice(0, 40)}" is not readable`);
      break;
    }
    case 'mailSubject':
      if (ANY_CONTROL.test(rendered)) problems.push('a control character or line break (header injection)');
      if (BIDI.test(rendered)) problems.push('a bidi override');
      if (carries && !rendered.includes(hostile.readable)) problems.push(`"${hostile.readable.slice(0, 40)}" is not readable`);
      break;
    case 'mailText':
      if (rendered.includes('\r') || CONTROL_BUT_NEWLINE.test(rendered.replace(/\t/g, ' '))) problems.push('a control character other than a line break');
      if (BIDI.test(rendered)) problems.push('a bidi override');
      if (carries && !rendered.includes(hostile.readable)) problems.push(`"${hostile.readable.slice(0, 40)}" is not readable`);
      break;
    case 'mailHtml':
      // Escaped with the project's escaper: the readable text shows as its escaped form, never raw markup.
      if (/[<>"'&]/.test(hostile.readable) && rendered.includes(hostile.readable)) problems.push('the text is in the HTML unescaped');
      if (BIDI.test(rendered)) problems.push('a bidi override');
      if (carries && !rendered.includes(escapeHtml(hostile.readable))) problems.push(`"${hostile.readable.slice(0, 40)}" is not readable`);
      break;
    case 'webhookJson': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(rendered);
      } catch {
        problems.push('the body is not JSON');
        break;
      }
      const keys = typeof parsed === 'object' && parsed !== null ? Object.keys(parsed).sort() : [];
      if (keys.join(',') !== 'data,timestamp,type') problems.push(`top-level keys ${keys.join(',')}`);
      // Machines read it: the tenant's string arrives exactly as typed (trimmed as the API stores it).
      if (carries && !stringsIn(parsed).some((s) => s.includes(hostile.value.trim()))) problems.push('the string is not in the payload as typed');
      break;
    }
  }
  return problems;
}

/** A mail's parts: its subject, its text body and (when it has one) its HTML body, each for its own format. */
export function mailInertProblems(
  mail: { subject: string; text: string; html?: string | undefined },
  hostile: HostileString,
  carries: { subject: boolean; body: boolean },
): string[] {
  return [
    ...inertProblems('mailSubject', mail.subject, hostile, { carries: carries.subject }).map((p) => `subject: ${p}`),
    ...inertProblems('mailText', mail.text, hostile, { carries: carries.body }).map((p) => `text: ${p}`),
    ...(mail.html === undefined ? [] : inertProblems('mailHtml', mail.html, hostile, { carries: carries.body }).map((p) => `html: ${p}`)),
  ];
}
