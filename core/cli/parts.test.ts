import { describe, expect, it } from 'vitest';
import { OutputTail } from './outputTail.js';
import { exitCodeOf, parseCommandLine, pingUrl, redact } from './vigilRun.js';

describe('OutputTail', () => {
  it('keeps exactly the last bytes across chunk boundaries', () => {
    const tail = new OutputTail(10);
    for (const chunk of ['abc', 'defgh', 'ijklmnop', 'qr']) tail.push(Buffer.from(chunk));
    expect(tail.text()).toBe('ijklmnopqr');
  });

  it('keeps at most the limit in bytes, however the output decodes', () => {
    const tail = new OutputTail(10);
    tail.push(Buffer.alloc(25, 0xff)); // not UTF-8: each byte would decode to a 3-byte replacement character
    expect(tail.bytes().byteLength).toBe(10);
    expect(tail.bytes(4).byteLength).toBe(6);
  });

  it('never starts the body inside a multi-byte character', () => {
    const tail = new OutputTail(4);
    tail.push(Buffer.from('xé€')); // 1 + 2 + 3 bytes; the last 4 cut é in half
    expect(tail.text()).toBe('€');
  });
});

describe('pingUrl', () => {
  it('appends the suffix and run id, keeping an existing query', () => {
    const base = new URL('https://vigil.example/api/signals/ping/tok/?x=1');
    expect(pingUrl(base, 'start', 'r1').href).toBe('https://vigil.example/api/signals/ping/tok/start?x=1&rid=r1');
    expect(pingUrl(base, '', 'r1').href).toBe('https://vigil.example/api/signals/ping/tok?x=1&rid=r1');
  });
});

describe('parseCommandLine', () => {
  it('prefers VIGIL_PING_URL over --url (saying so when they differ) and keeps the command arguments verbatim', () => {
    const parsed = parseCommandLine(['--url', 'http://a/p', '--', 'tar', '-czf', '--url'], { VIGIL_PING_URL: 'http://b/p' });
    expect(parsed).toEqual({
      url: new URL('http://b/p'),
      command: 'tar',
      args: ['-czf', '--url'],
      reportDependencies: false,
      notice: 'both VIGIL_PING_URL and --url are set; pinging the one in VIGIL_PING_URL',
    });
    expect(parseCommandLine(['--url', 'http://a/p', '--', 'true'], { VIGIL_PING_URL: '' })).toEqual({
      url: new URL('http://a/p'),
      command: 'true',
      args: [],
      reportDependencies: false,
    });
    expect(parseCommandLine(['--report-dependencies', '--', 'true'], { VIGIL_PING_URL: 'http://b/p' })).toMatchObject({ reportDependencies: true });
  });

  it('takes a leading -- that npx passed on, but a lone -- still starts the command', () => {
    expect(parseCommandLine(['--', '--url', 'http://a/p', '--', 'true'], {})).toEqual({ url: new URL('http://a/p'), command: 'true', args: [], reportDependencies: false });
    expect(parseCommandLine(['--', 'echo', '--url'], { VIGIL_PING_URL: 'http://b/p' })).toEqual({
      url: new URL('http://b/p'),
      command: 'echo',
      args: ['--url'],
      reportDependencies: false,
    });
    expect(parseCommandLine(['--', 'sh', '-c', 'x', '--', 'y'], { VIGIL_PING_URL: 'http://b/p' })).toEqual({
      url: new URL('http://b/p'),
      command: 'sh',
      args: ['-c', 'x', '--', 'y'],
      reportDependencies: false,
    });
  });
});

describe('redact', () => {
  it('hides the token of /ping/<token> and the key of the deprecated /p/<key>/<slug>, and drops the query', () => {
    expect(redact(new URL('https://v.example/api/signals/ping/tok123/start?rid=r'))).toBe('https://v.example/api/signals/ping/…/start');
    expect(redact(new URL('https://v.example/api/signals/p/pk_secret/nightly/3?rid=r'))).toBe('https://v.example/api/signals/p/…/nightly/3');
  });
});

describe('exitCodeOf', () => {
  it('is the code, or 128 + the signal number', () => {
    expect(exitCodeOf(3, null)).toBe(3);
    expect(exitCodeOf(null, 'SIGTERM')).toBe(143);
    expect(exitCodeOf(null, 'SIGKILL')).toBe(137);
  });
});
