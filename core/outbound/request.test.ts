import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { nodeConnect } from './connect.js';
import { guardedRequest } from './request.js';
import {
  closedLoopbackPort,
  endlessBody,
  fakeResolver,
  fakeResponse,
  forbiddenResolver,
  installDnsTripwire,
  spyConnect,
  startLoopbackServer,
  toLoopback,
  type LoopbackServer,
} from '../../test/support/outbound.js';
import { OutboundInputError, type GuardedRequestInput, type GuardedResult, type Resolver } from './types.js';

/** Real exchanges with a loopback server (allowLoopback), plus fakes where no socket is wanted. */

let server: LoopbackServer;
let other: LoopbackServer;
let tripwire: ReturnType<typeof installDnsTripwire>;

beforeAll(async () => {
  server = await startLoopbackServer((request, response, body) => {
    const url = new URL(request.url ?? '/', 'http://test');
    const to = url.searchParams.get('to');
    const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
    if (url.pathname === '/ok') response.end('hello');
    else if (url.pathname === '/redirect' && to !== null) {
      response.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to }).end();
    } else if (chain !== null) {
      const left = Number(chain[1]);
      if (left === 0) response.end('end of chain');
      else response.writeHead(302, { location: `/chain/${left - 1}` }).end();
    } else if (url.pathname === '/hang') {
      // Never answers: the deadline has to end the exchange.
    } else if (url.pathname === '/trickle') {
      response.writeHead(200);
      response.write('first bytes, then silence');
    } else if (url.pathname === '/big') response.end(Buffer.alloc(1024 * 1024, 0x62));
    else if (url.pathname === '/no-location') response.writeHead(302).end();
    else if (url.pathname === '/echo') {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ method: request.method, headers: request.headers, body }));
    } else response.writeHead(404).end();
  });
  other = await startLoopbackServer((request, response, body) => {
    response.end(JSON.stringify({ method: request.method, headers: request.headers, body }));
  });
  tripwire = installDnsTripwire();
});

afterAll(async () => {
  tripwire.restore();
  expect(tripwire.calls).toEqual([]);
  await Promise.all([server.close(), other.close()]);
});

function input(path: string, overrides: Partial<GuardedRequestInput> = {}): GuardedRequestInput {
  return {
    url: `${server.origin}${path}`,
    method: 'GET',
    timeoutMs: 5000,
    followRedirects: true,
    maxRedirects: 3,
    blockHttpDowngrade: true,
    ...overrides,
  };
}

const loopback = { allowLoopback: true, resolve: forbiddenResolver } as const;

type Echo = { method: string; headers: Record<string, string | undefined>; body: string };

/** What the echo endpoint saw, or a failed test when the exchange did not succeed. */
function echoed(result: GuardedResult): Echo {
  if (!result.ok) throw new Error(`expected success, got ${result.failureReason}: ${result.message}`);
  return JSON.parse(result.bodyText) as Echo;
}

describe('real exchanges on loopback', () => {
  it('returns status, headers, body and the final URL', async () => {
    const result = await guardedRequest(input('/echo', { headers: { 'X-Probe': 'vigil' } }), loopback);
    expect(result).toMatchObject({ ok: true, statusCode: 200, bodyTruncated: false, finalUrl: `${server.origin}/echo` });
    expect(result.ok && result.headers['content-type']).toBe('application/json');
    const seen = echoed(result);
    expect(seen.headers['x-probe']).toBe('vigil');
    expect(seen.headers['user-agent']).toMatch(/^Vigil-Probe/);
    expect(seen.headers.host).toBe(`127.0.0.1:${server.port}`);
  });

  it('is refused on loopback when the local-testing switch is off', async () => {
    const spy = spyConnect(nodeConnect);
    const result = await guardedRequest(input('/ok'), { resolve: forbiddenResolver, connect: spy.connect });
    expect(result).toMatchObject({ ok: false, failureReason: 'SSRF_BLOCKED' });
    expect(spy.calls).toHaveLength(0);
    expect(server.requests.some((request) => request.url === '/ok')).toBe(false);
  });

  it('maps a refused connection to CONNECTION_ERROR', async () => {
    const port = await closedLoopbackPort();
    const result = await guardedRequest({ ...input('/'), url: `http://127.0.0.1:${port}/` }, loopback);
    expect(result).toMatchObject({ ok: false, failureReason: 'CONNECTION_ERROR', message: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('measures latency with the injected clock', async () => {
    const ticks = [1000, 1250];
    const now = (): number => ticks.shift() ?? 1250;
    expect(await guardedRequest(input('/ok'), { ...loopback, now })).toMatchObject({ ok: true, latencyMs: 250 });
  });
});

describe('redirects, followed by hand', () => {
  it('follows up to maxRedirects hops, resolving relative locations', async () => {
    const result = await guardedRequest(input('/chain/3'), loopback);
    expect(result).toMatchObject({ ok: true, statusCode: 200, bodyText: 'end of chain', finalUrl: `${server.origin}/chain/0` });
  });

  it('fails with TOO_MANY_REDIRECTS past maxRedirects, without making the extra request', async () => {
    const spy = spyConnect(nodeConnect);
    const result = await guardedRequest(input('/chain/4'), { ...loopback, connect: spy.connect });
    expect(result).toMatchObject({ ok: false, failureReason: 'TOO_MANY_REDIRECTS', statusCode: 302 });
    expect(spy.calls.map((call) => call.url.pathname)).toEqual(['/chain/4', '/chain/3', '/chain/2', '/chain/1']);
  });

  it('treats maxRedirects 0 as "no hop allowed" and followRedirects false as "return the 3xx"', async () => {
    expect(await guardedRequest(input('/chain/1', { maxRedirects: 0 }), loopback)).toMatchObject({ ok: false, failureReason: 'TOO_MANY_REDIRECTS' });
    const result = await guardedRequest(input('/chain/1', { followRedirects: false }), loopback);
    expect(result).toMatchObject({ ok: true, statusCode: 302, headers: { location: '/chain/0' } });
    expect(await guardedRequest(input('/no-location'), loopback)).toMatchObject({ ok: true, statusCode: 302 });
  });

  const internal = fakeResolver({ 'internal.example': ['10.0.0.5'], 'sneaky.example': ['93.184.216.34', 'fd00::5'] });
  it.each([
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/iam/',
    'http://0xa9fea9fe/',
    'http://[fd00:ec2::254]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::]:80/',
    'http://internal.example/',
    'http://sneaky.example/',
    'http://localhost/',
    'ftp://example.com/',
  ])('refuses a hop to %s and never connects to it', async (to) => {
    const spy = spyConnect(nodeConnect);
    const result = await guardedRequest(input(`/redirect?to=${encodeURIComponent(to)}`), {
      allowLoopback: true,
      resolve: internal.resolve,
      connect: spy.connect,
    });
    expect(result).toMatchObject({ ok: false, failureReason: 'SSRF_BLOCKED', statusCode: 302 });
    expect(spy.calls.map((call) => call.address)).toEqual(['127.0.0.1']);
  });

  it('refuses a hop from a public name back to loopback when the switch is off', async () => {
    const dns = fakeResolver({ 'public.example': ['93.184.216.34'] });
    const spy = spyConnect(toLoopback(server.port));
    const to = encodeURIComponent(`http://127.0.0.1:${server.port}/ok`);
    const result = await guardedRequest({ ...input(''), url: `http://public.example/redirect?to=${to}` }, { resolve: dns.resolve, connect: spy.connect });
    expect(result).toMatchObject({ ok: false, failureReason: 'SSRF_BLOCKED', statusCode: 302 });
    expect(spy.calls).toHaveLength(1);
  });

  it('turns POST into GET on 303 and keeps method and body on 307', async () => {
    const to = encodeURIComponent('/echo');
    const seeOther = await guardedRequest(input(`/redirect?status=303&to=${to}`, { method: 'POST', body: 'payload' }), loopback);
    const temporary = await guardedRequest(input(`/redirect?status=307&to=${to}`, { method: 'POST', body: 'payload' }), loopback);
    expect(echoed(seeOther)).toMatchObject({ method: 'GET', body: '' });
    expect(echoed(temporary)).toMatchObject({ method: 'POST', body: 'payload' });
  });

  it('drops every caller header on a cross-origin hop and keeps them on a same-origin one', async () => {
    const headers = { Authorization: 'Bearer secret', 'X-Api-Key': 'also secret', 'X-Custom': 'kept' };
    const cross = await guardedRequest(input(`/redirect?to=${encodeURIComponent(`${other.origin}/`)}`, { headers }), loopback);
    const same = await guardedRequest(input(`/redirect?to=${encodeURIComponent('/echo')}`, { headers }), loopback);
    expect(echoed(cross).headers['x-custom']).toBeUndefined();
    expect(echoed(cross).headers['x-api-key']).toBeUndefined();
    expect(echoed(cross).headers['user-agent']).toBe('Vigil-Probe/1.0');
    expect(echoed(cross).headers.authorization).toBeUndefined();
    expect(echoed(same).headers).toMatchObject({ 'x-custom': 'kept', 'x-api-key': 'also secret' });
    expect(echoed(same).headers).toMatchObject({ authorization: 'Bearer secret' });
  });
});

describe('HTTPS to HTTP downgrade (fake connector, no socket)', () => {
  const dns = fakeResolver({ 'secure.example': ['93.184.216.34'], 'plain.example': ['93.184.216.35'] });
  const redirectingConnect = spyConnect(async (request) =>
    request.url.protocol === 'https:' ? fakeResponse(301, { headers: { location: 'http://plain.example/' } }) : fakeResponse(200),
  );

  it('refuses the downgrade when blockHttpDowngrade is set', async () => {
    const spy = spyConnect(redirectingConnect.connect);
    const result = await guardedRequest({ ...input(''), url: 'https://secure.example/' }, { resolve: dns.resolve, connect: spy.connect });
    expect(result).toMatchObject({ ok: false, failureReason: 'HTTP_DOWNGRADE_BLOCKED', statusCode: 301 });
    expect(spy.calls).toHaveLength(1);
  });

  it('follows it when blockHttpDowngrade is off, still checking the new host', async () => {
    const spy = spyConnect(redirectingConnect.connect);
    const result = await guardedRequest({ ...input(''), url: 'https://secure.example/', blockHttpDowngrade: false }, { resolve: dns.resolve, connect: spy.connect });
    expect(result).toMatchObject({ ok: true, statusCode: 200, finalUrl: 'http://plain.example/' });
    expect(spy.calls.map((call) => [call.url.protocol, call.address, call.port])).toEqual([
      ['https:', '93.184.216.34', 443],
      ['http:', '93.184.216.35', 80],
    ]);
  });
});

describe('deadline', () => {
  it('ends an exchange with a server that never answers (TIMEOUT)', async () => {
    const result = await guardedRequest(input('/hang', { timeoutMs: 200 }), loopback);
    expect(result).toMatchObject({ ok: false, failureReason: 'TIMEOUT' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(150);
    expect(result.latencyMs).toBeLessThan(2000);
  });

  it('covers the body too, not only the headers', async () => {
    expect(await guardedRequest(input('/trickle', { timeoutMs: 200 }), loopback)).toMatchObject({ ok: false, failureReason: 'TIMEOUT' });
  });

  it('covers a lookup that never returns, and then connects nowhere', async () => {
    const stuck: Resolver = () => new Promise(() => undefined);
    const spy = spyConnect();
    const result = await guardedRequest({ ...input(''), url: 'http://slow-dns.example/', timeoutMs: 200 }, { resolve: stuck, connect: spy.connect });
    expect(result).toMatchObject({ ok: false, failureReason: 'TIMEOUT' });
    expect(spy.calls).toHaveLength(0);
  });
});

describe('a connector that ignores the deadline', () => {
  it('still yields TIMEOUT, and a response that arrives later is discarded (fake timers)', async () => {
    vi.useFakeTimers();
    try {
      let release: (response: ReturnType<typeof fakeResponse>) => void = () => undefined;
      const pending = new Promise<ReturnType<typeof fakeResponse>>((resolve) => (release = resolve));
      const dns = fakeResolver({ 'deaf.example': ['93.184.216.34'] });
      const outcome = guardedRequest({ ...input(''), url: 'http://deaf.example/', timeoutMs: 1000 }, { resolve: dns.resolve, connect: () => pending });
      await vi.advanceTimersByTimeAsync(1000);
      expect(await outcome).toMatchObject({ ok: false, failureReason: 'TIMEOUT' });
      const late = fakeResponse(200);
      release(late);
      await vi.runAllTimersAsync();
      expect(late.discarded()).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('body cap', () => {
  it('keeps maxBodyBytes of a large body and says it was truncated', async () => {
    const result = await guardedRequest(input('/big', { maxBodyBytes: 1024 }), loopback);
    expect(result).toMatchObject({ ok: true, bodyTruncated: true });
    expect(result.ok && result.bodyText).toBe('b'.repeat(1024));
  });

  it('defaults to 64 KiB', async () => {
    const result = await guardedRequest(input('/big'), loopback);
    expect(result.ok && result.bodyText.length).toBe(64 * 1024);
  });

  it('stops reading an endless body at the cap and releases it', async () => {
    const response = fakeResponse(200, { body: endlessBody(4096) });
    const dns = fakeResolver({ 'endless.example': ['93.184.216.34'] });
    const result = await guardedRequest({ ...input(''), url: 'http://endless.example/', maxBodyBytes: 10_000 }, { resolve: dns.resolve, connect: async () => response });
    expect(result).toMatchObject({ ok: true, bodyTruncated: true });
    expect(result.ok && result.bodyText.length).toBe(10_000);
    expect(response.discarded()).toBe(true);
  });
});

describe('input the API schema should already have refused', () => {
  const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`x-h${i}`, 'v']));
  it.each([
    ['11 custom headers', { headers: eleven }],
    ['maxRedirects 4', { maxRedirects: 4 }],
    ['maxRedirects -1', { maxRedirects: -1 }],
    ['timeoutMs 0', { timeoutMs: 0 }],
    ['timeoutMs past setTimeout range', { timeoutMs: 2 ** 31 }],
    ['a Host header', { headers: { Host: 'other.example' } }],
    ['a Transfer-Encoding header', { headers: { 'transfer-encoding': 'chunked' } }],
    ['a header value with CRLF', { headers: { 'x-a': 'v\r\nInjected: 1' } }],
    ['an invalid header name', { headers: { 'bad name': 'v' } }],
    ['method TRACE', { method: 'TRACE' }],
  ] as const)('throws OutboundInputError for %s, before any socket', async (_label, overrides) => {
    const spy = spyConnect();
    await expect(guardedRequest(input('/ok', overrides), { ...loopback, connect: spy.connect })).rejects.toBeInstanceOf(OutboundInputError);
    expect(spy.calls).toHaveLength(0);
  });
});
