import { describe, expect, it } from 'vitest';
import { slackEscape } from '../core/alerting/channelsDelivery.js';
import { escapeHtml, plainText, singleLine } from '../core/statuspages/render/sanitize.js';
import { HOSTILE_STRINGS, inertProblems, type MessageFormat } from './support/hostile.js';

/**
 * The hostile table's own checks (test/support/hostile.ts), so a test that relies on them
 * (alerts, notices, and later HTML mail) can trust an empty list: each format's checker passes
 * the string escaped for that format and refuses it raw.
 */
const escaped: Record<MessageFormat, (value: string) => string> = {
  slack: (v) => slackEscape(plainText(v)),
  mailSubject: (v) => singleLine(v, 300),
  mailText: (v) => plainText(v),
  mailHtml: (v) => `<p>${escapeHtml(singleLine(v, 300))}</p>`,
  webhookJson: (v) => JSON.stringify({ type: 't', timestamp: 'now', data: { name: v } }),
};

describe('the hostile table', () => {
  it.each(Object.keys(escaped) as MessageFormat[])('%s: passes every string escaped for the format', (format) => {
    for (const hostile of HOSTILE_STRINGS) expect(inertProblems(format, escaped[format](hostile.value), hostile), hostile.name).toEqual([]);
  });

  it('refuses raw strings where the format has something to escape', () => {
    const raw = (name: string) => HOSTILE_STRINGS.find((h) => h.name === name)!;
    expect(inertProblems('slack', `*Alert*\n${raw('Slack channel ping').value}`, raw('Slack channel ping'))).toContain('a raw < or > (a Slack control sequence)');
    // An entity left as typed reads as something else once Slack unescapes it.
    expect(inertProblems('slack', raw('an entity already escaped').value, raw('an entity already escaped'))).toEqual(['"&lt; &amp;" is not readable']);
    const ampersand = { name: 'ampersand', value: 'Fish & chips', readable: 'Fish & chips' };
    expect(inertProblems('slack', ampersand.value, ampersand)).toEqual(['a raw & (not &amp; &lt; &gt;)']);
    expect(inertProblems('mailSubject', `[P1] ${raw('mail header injection').value}`, raw('mail header injection'))).toContain(
      'a control character or line break (header injection)',
    );
    expect(inertProblems('mailText', raw('RTL override').value, raw('RTL override'))).toContain('a bidi override');
    expect(inertProblems('mailHtml', `<p>${raw('script element').value}</p>`, raw('script element'))).toContain('the text is in the HTML unescaped');
    expect(inertProblems('webhookJson', `{"type":"t","timestamp":"now","data":{"name":"${raw('JSON breakout').value}"}}`, raw('JSON breakout'))).not.toEqual([]);
    expect(inertProblems('mailText', 'nothing of it', raw('unicode'))).toEqual(['"Ünïcödé ✓ 日本 🚨" is not readable']);
  });
});
