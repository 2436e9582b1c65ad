import { describe, expect, it } from 'vitest';
import { isBlockedAddress } from './addresses.js';
import { isLocalhostName, parseTargetUrl, type ParsedTarget } from './url.js';

function parsed(input: string, base?: URL): ParsedTarget {
  const check = parseTargetUrl(input, base);
  if (!check.ok) throw new Error(`expected ${input} to parse: ${check.message}`);
  return check.target;
}

// Every spelling of an address a URL may hide; each must land on the literal address it hides.
const SPELLINGS: readonly [string, string][] = [
  ['http://127.0.0.1/', '127.0.0.1'],
  ['http://2130706433/', '127.0.0.1'],
  ['http://0x7f.1/', '127.0.0.1'],
  ['http://0x7f000001/', '127.0.0.1'],
  ['http://0177.0.0.1/', '127.0.0.1'],
  ['http://017700000001/', '127.0.0.1'],
  ['http://127.1/', '127.0.0.1'],
  ['http://127.0.1/', '127.0.0.1'],
  ['http://%31%32%37.0.0.1/', '127.0.0.1'],
  ['http://\uFF11\uFF12\uFF17.\uFF10.\uFF10.\uFF11/', '127.0.0.1'],
  ['http://127.0.0.1./', '127.0.0.1'],
  ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
  ['http://[::1]/', '::1'],
  ['http://[0:0:0:0:0:0:0:1]/', '::1'],
  ['http://[::127.0.0.1]/', '::7f00:1'],
  ['http://evil.example@127.0.0.1/', '127.0.0.1'],
  ['http://evil.example:pw@127.0.0.1:8080/', '127.0.0.1'],
  ['https://0/', '0.0.0.0'],
  ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
  ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254'],
  ['http://2852039166/', '169.254.169.254'],
  ['http://[::ffff:a9fe:a9fe]/', '::ffff:a9fe:a9fe'],
  ['http://[fd00:ec2::254]/', 'fd00:ec2::254'],
  ['HTTP://10.0.0.1:8080/x', '10.0.0.1'],
];

describe('parseTargetUrl', () => {
  it.each(SPELLINGS)('reads %s as the literal address %s, which is blocked', (input, address) => {
    const target = parsed(input);
    expect(target.host).toEqual({ kind: 'ip', address, family: address.includes(':') ? 6 : 4 });
    expect(target.hostname).toBe(address);
    expect(isBlockedAddress(target.host.kind === 'ip' ? target.host.address : '')).toBe(true);
  });

  it.each([
    'http://localhost/',
    'http://localhost./',
    'http://LOCALHOST:3000/api',
    'http://api.localhost/',
    'http://a.b.localhost./',
    'http://\uFF4C\uFF4F\uFF43\uFF41\uFF4C\uFF48\uFF4F\uFF53\uFF54/',
    'http://user@localhost/',
  ])('refuses the loopback name in %s before any lookup', (input) => {
    const check = parseTargetUrl(input);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).toMatch(/loopback name/);
  });

  it.each(['file:///etc/passwd', 'ftp://example.com/', 'gopher://example.com:70/', 'data:text/plain,hi', 'javascript:alert(1)', 'ws://example.com/'])(
    'refuses the scheme of %s',
    (input) => {
      expect(parseTargetUrl(input)).toMatchObject({ ok: false, message: expect.stringMatching(/scheme/) });
    },
  );

  it.each(['', 'not a url', 'http://', 'http://exa mple.com/', 'http://[::1/'])('refuses the unparsable %j', (input) => {
    expect(parseTargetUrl(input)).toMatchObject({ ok: false, message: expect.stringMatching(/not a valid URL/) });
  });

  it('keeps a name as a name, with default and explicit ports', () => {
    expect(parsed('https://Status.Example.COM/health?x=1')).toMatchObject({
      hostname: 'status.example.com',
      host: { kind: 'name', hostname: 'status.example.com' },
      port: 443,
    });
    expect(parsed('http://example.com/').port).toBe(80);
    expect(parsed('http://example.com:8080/').port).toBe(8080);
    expect(parsed('http://localhost.example.com/').host.kind).toBe('name');
  });

  it('resolves a redirect location against the current URL', () => {
    const base = new URL('https://example.com/a/b?q=1');
    expect(parsed('../c', base).url.href).toBe('https://example.com/c');
    expect(parsed('//10.0.0.1/x', base).host).toEqual({ kind: 'ip', address: '10.0.0.1', family: 4 });
    expect(parsed('http://[::1]:81/', base).port).toBe(81);
  });
});

describe('isLocalhostName', () => {
  it.each([
    ['localhost', true],
    ['localhost.', true],
    ['x.localhost', true],
    ['x.localhost.', true],
    ['localhost.example.com', false],
    ['mylocalhost', false],
  ] as const)('%s -> %s', (name, expected) => {
    expect(isLocalhostName(name)).toBe(expected);
  });
});
