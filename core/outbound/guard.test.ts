import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedRequest } from './request.js';
import {
  fakeResolver,
  fakeResponse,
  forbiddenResolver,
  installDnsTripwire,
  rangeEdgeCases,
  spyConnect,
  startLoopbackServer,
  toLoopback,
  type LoopbackServer,
} from '../../test/support/outbound.js';
import type { GuardedRequestInput, Resolver } from './types.js';

/**
 * The SSRF decision through the public entry point. A refused target must leave the connector
 * untouched: `spyConnect()` records every call and would fail rather than connect anyway.
 */

const base: GuardedRequestInput = {
  url: 'http://placeholder.example/',
  method: 'GET',
  timeoutMs: 2000,
  followRedirects: true,
  maxRedirects: 3,
  blockHttpDowngrade: true,
};

function bracket(ip: string): string {
  return ip.includes(':') ? `[${ip}]` : ip;
}

let tripwire: ReturnType<typeof installDnsTripwire>;
beforeAll(() => {
  tripwire = installDnsTripwire();
});
afterAll(() => {
  tripwire.restore();
  // Nothing in this file may have fallen back to Node's own resolver.
  expect(tripwire.calls).toEqual([]);
});

describe('literal addresses (checked directly; Node would skip lookup for them)', () => {
  it.each(rangeEdgeCases)('refuses http://$ip/ ($cidr) without a lookup or a socket', async ({ ip }) => {
    const spy = spyConnect();
    const result = await guardedRequest({ ...base, url: `http://${bracket(ip)}:8080/` }, { resolve: forbiddenResolver, connect: spy.connect });
    expect(result).toMatchObject({ ok: false, failureReason: 'SSRF_BLOCKED' });
    expect(spy.calls).toHaveLength(0);
  });

  it.each([
    'http://2130706433/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://%31%32%37.0.0.1/',
    'http://\uFF11\uFF12\uFF17.\uFF10.\uFF10.\uFF11/',
    'http://127.0.0.1./',
    'http://[::ffff:127.0.0.1]/',
    'http://[::1]/',
    'http://evil.example@127.0.0.1/',
    'http://0/',
    'http://2852039166/latest/meta-data/',
    'http://localhost/',
    'http://localhost./',
    'http://metadata.localhost/',
    'file:///etc/passwd',
  ])('refuses %s without a lookup or a socket', async (url) => {
    const spy = spyConnect();
    const result = await guardedRequest({ ...base, url }, { resolve: forbiddenResolver, connect: spy.connect });
    expect(result).toMatchObject({ ok: false, failureReason: 'SSRF_BLOCKED' });
    expect(spy.calls).toHaveLength(0);
  });

  it('passes a public literal to the connector as the pinned address', async () => {
    const spy = spyConnect(async () => fakeResponse(204));
    const result = await guardedRequest({ ...base, url: 'https://[2606:4700:4700::1111]/dns-query' }, { resolve: forbiddenResolver, connect: spy.connect });
    expect(result).toMatchObject({ ok: true, statusCode: 204 });
    expect(spy.calls[0]).toMatchObject({ hostname: '2606:4700:4700::1111', address: '2606:4700:4700::1111', family: 6, port: 443 });
  });
});

describe('resolved names (every answer checked, connection pinned)', () => {
  it.each(rangeEdgeCases)('refuses a name resolving to $ip ($cidr)', async ({ ip }) => {
    const dns = fakeResolver({ 'target.example': [ip] });
    const spy = spyConnect();
    const result = await guardedRequest({ ...base, url: 'http://target.example/' }, { resolve: dns.resolve, connect: spy.connect });
    expect(result).toMatchObject({ ok: false, failureReason: 'SSRF_BLOCKED' });
    expect(dns.calls).toEqual(['target.example']);
    expect(spy.calls).toHaveLength(0);
  });

  it.each([
    [['93.184.216.34', '10.0.0.1']],
    [['10.0.0.1', '93.184.216.34']],
    [['2606:4700:4700::1111', '::1']],
    [['8.8.8.8', '1.1.1.1', '169.254.169.254']],
    [['93.184.216.34', '::ffff:7f00:1']],
    [['93.184.216.34', 'not-an-ip']],
  ])('refuses mixed answers %j: one bad address refuses the name', async (answers) => {
    const dns = fakeResolver({ 'mixed.example': answers });
    const spy = spyConnect();
    const result = await guardedRequest({ ...base, url: 'https://mixed.example/' }, { resolve: dns.resolve, connect: spy.connect });
    expect(result).toMatchObject({ ok: false, failureReason: 'SSRF_BLOCKED' });
    expect(spy.calls).toHaveLength(0);
  });

  it('loopback answers stay refused for names even with allowLoopback when mixed with private ones', async () => {
    const dns = fakeResolver({ 'dev.example': ['127.0.0.1', '192.168.1.10'] });
    const spy = spyConnect();
    const result = await guardedRequest({ ...base, url: 'http://dev.example/' }, { resolve: dns.resolve, connect: spy.connect, allowLoopback: true });
    expect(result).toMatchObject({ ok: false, failureReason: 'SSRF_BLOCKED' });
    expect(spy.calls).toHaveLength(0);
  });

  it('connects to the first checked address, keeping the name for Host and SNI', async () => {
    const dns = fakeResolver({ 'www.example.com': ['93.184.216.34', '93.184.216.35'] });
    const spy = spyConnect(async () => fakeResponse(200));
    const result = await guardedRequest({ ...base, url: 'https://www.example.com/health' }, { resolve: dns.resolve, connect: spy.connect });
    expect(result).toMatchObject({ ok: true, statusCode: 200, finalUrl: 'https://www.example.com/health' });
    expect(spy.calls).toHaveLength(1);
    expect(spy.calls[0]).toMatchObject({ hostname: 'www.example.com', address: '93.184.216.34', family: 4, port: 443 });
    expect(spy.calls[0]?.url.href).toBe('https://www.example.com/health');
  });

  it('maps lookup failures and empty answers to DNS_ERROR without a socket', async () => {
    const spy = spyConnect();
    const nxdomain = fakeResolver({});
    const empty = fakeResolver({ 'empty.example': [] });
    expect(await guardedRequest({ ...base, url: 'http://nx.example/' }, { resolve: nxdomain.resolve, connect: spy.connect })).toMatchObject({
      ok: false,
      failureReason: 'DNS_ERROR',
      message: expect.stringMatching(/ENOTFOUND/),
    });
    expect(await guardedRequest({ ...base, url: 'http://empty.example/' }, { resolve: empty.resolve, connect: spy.connect })).toMatchObject({
      ok: false,
      failureReason: 'DNS_ERROR',
    });
    expect(spy.calls).toHaveLength(0);
  });
});

describe('DNS rebinding: public on the first lookup, private on the second', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer((_request, response) => response.end('pinned'));
  });
  afterAll(() => server.close());

  function rebindingResolver(): { resolve: Resolver; calls: string[] } {
    const calls: string[] = [];
    const resolve: Resolver = async (hostname) => {
      calls.push(hostname);
      return calls.length === 1 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    };
    return { resolve, calls };
  }

  it('looks up once and connects to the address it checked', async () => {
    const dns = rebindingResolver();
    // The real node connector, redirected at the socket level to the loopback test server.
    const spy = spyConnect(toLoopback(server.port));
    const result = await guardedRequest({ ...base, url: 'http://rebind.example/' }, { resolve: dns.resolve, connect: spy.connect });

    expect(result).toMatchObject({ ok: true, statusCode: 200, bodyText: 'pinned' });
    expect(dns.calls).toEqual(['rebind.example']);
    expect(spy.calls.map((call) => call.address)).toEqual(['93.184.216.34']);
    expect(server.requests.at(-1)?.headers.host).toBe('rebind.example');
    expect(tripwire.calls).toEqual([]);
  });
});
