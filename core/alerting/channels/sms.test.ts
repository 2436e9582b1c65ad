import { describe, expect, it } from 'vitest';
import { smsText, smsUnits } from './sms.js';

const message = (subject: string, acknowledgeUrl?: string) => ({
  id: 'm',
  type: 'incident.opened',
  subject,
  text: 'the long body never goes by SMS',
  data: {},
  ...(acknowledgeUrl ? { actions: { acknowledgeUrl, resolveUrl: 'https://vigil.example/api/resolve' } } : {}),
});
const LINK = `https://vigil.example/api/incidents/ack/${'x'.repeat(60)}`;

describe('smsUnits', () => {
  it('counts GSM 03.38 septets (extension characters twice) and UCS-2 code units otherwise', () => {
    expect(smsUnits('Checkout is down')).toEqual({ units: 16, perSegment: 160 });
    expect(smsUnits('a{b}€')).toEqual({ units: 8, perSegment: 160 });
    expect(smsUnits('Ünïcödé 🚨')).toEqual({ units: 10, perSegment: 70 });
  });
});

describe('smsText', () => {
  it('is the subject line, without the body, and only the acknowledge link (never the resolve one)', () => {
    expect(smsText(message('[P1] Incident opened: api', LINK))).toBe(`Vigil: [P1] Incident opened: api\n${LINK}`);
    expect(smsText(message('[P1] Incident resolved: api'))).toBe('Vigil: [P1] Incident resolved: api');
  });

  it('cuts the words, never the link, to fit one 160-character GSM segment', () => {
    const text = smsText(message(`[P2] Incident opened: ${'W'.repeat(300)}`, LINK));
    expect(text.endsWith(`...\n${LINK}`)).toBe(true);
    expect(smsUnits(text)).toEqual({ units: 160, perSegment: 160 });
  });

  it('fits 70 UCS-2 units when a character needs it, and keeps at least 40 units of words when the link leaves less', () => {
    expect(smsUnits(smsText(message(`[P2] Incident opened: 日本 ${'W'.repeat(100)}`))).units).toBe(70);
    const withLink = smsText(message(`[P2] Incident opened: 日本 ${'W'.repeat(100)}`, LINK));
    expect(withLink.split('\n')).toEqual([expect.stringMatching(/^Vigil: \[P2\] Incident opened: 日本 W+\.\.\.$/), LINK]);
    expect(smsUnits(withLink.split('\n')[0] ?? '').units).toBe(40);
  });

  it('keeps a subject cut upstream ("…") in GSM, so it still gets 160 characters', () => {
    const text = smsText(message(`[P2] Incident opened: ${'W'.repeat(199)}…`));
    expect(smsUnits(text)).toEqual({ units: 160, perSegment: 160 });
  });

  it('never cuts a surrogate pair in half', () => {
    const text = smsText(message(`[P2] ${'🚨'.repeat(80)}`));
    expect(text).toMatch(/^Vigil: \[P2\] (🚨)+\.\.\.$/u);
    expect(smsUnits(text).units).toBeLessThanOrEqual(70);
  });
});
