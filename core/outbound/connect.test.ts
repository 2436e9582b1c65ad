import type { LookupAddress } from 'node:dns';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeConnect, nodeConnect, pinnedLookup } from './connect.js';
import { guardedRequest } from './request.js';
import { fakeResolver, installDnsTripwire, startLoopbackServer, startLoopbackTlsServer, toLoopback, type LoopbackServer } from '../../test/support/outbound.js';
import { TEST_CERT_PEM, TEST_CERT_VALID_TO, TEST_KEY_PEM } from '../../test/support/tlsFixture.js';
import type { GuardedRequestInput } from './types.js';

/** The node:http/https connector: pinned lookups, SNI and certificate checks on the host name. */

let plain: LoopbackServer;
let secure: LoopbackServer;
let tripwire: ReturnType<typeof installDnsTripwire>;

beforeAll(async () => {
  plain = await startLoopbackServer((request, response) => response.end(`host=${request.headers.host ?? ''}`));
  secure = await startLoopbackTlsServer(TEST_CERT_PEM, TEST_KEY_PEM, (request, response) => {
    const servername = (request.socket as TLSSocket).servername;
    response.end(`sni=${typeof servername === 'string' ? servername : 'none'}`);
  });
  tripwire = installDnsTripwire();
});

afterAll(async () => {
  tripwire.restore();
  expect(tripwire.calls).toEqual([]);
  await Promise.all([plain.close(), secure.close()]);
});

describe('pinnedLookup', () => {
  type Answer = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family: number | undefined };
  function ask(all: boolean, hostname = 'api.example.com'): Answer {
    let answer: Answer | undefined;
    pinnedLookup('api.example.com', '93.184.216.34', 4)(hostname, { all }, (error, address, family) => {
      answer = { error, address, family };
    });
    if (answer === undefined) throw new Error('lookup did not answer');
    return answer;
  }

  it('answers with the pinned address in both callback shapes', () => {
    expect(ask(false)).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(ask(true)).toEqual({ error: null, address: [{ address: '93.184.216.34', family: 4 }], family: undefined });
  });

  it('refuses to answer for any other name', () => {
    expect(ask(false, 'evil.example').error?.code).toBe('ERR_PINNED_LOOKUP');
  });
});

describe('nodeConnect', () => {
  it('connects to the pinned address without resolving the name, keeping it in Host', async () => {
    const url = new URL(`http://vigil-pinned.invalid:${plain.port}/`);
    const response = await nodeConnect({
      url,
      hostname: url.hostname,
      address: '127.0.0.1',
      family: 4,
      port: plain.port,
      method: 'GET',
      headers: {},
      signal: new AbortController().signal,
    });
    const chunks: Uint8Array[] = [];
    for await (const chunk of response.body) chunks.push(chunk);
    expect(response.statusCode).toBe(200);
    expect(Buffer.concat(chunks).toString()).toBe(`host=vigil-pinned.invalid:${plain.port}`);
    // A real lookup of the .invalid name would have hit the tripwire.
    expect(tripwire.calls).toEqual([]);
  });
});

describe('TLS through the guard', () => {
  const dns = fakeResolver({ 'vigil-tls.test': ['93.184.216.34'], 'other-name.test': ['93.184.216.34'] });
  const request = (url: string): GuardedRequestInput => ({
    url,
    method: 'GET',
    timeoutMs: 5000,
    followRedirects: false,
    maxRedirects: 0,
    blockHttpDowngrade: true,
  });
  const trusting = createNodeConnect({ ca: TEST_CERT_PEM });

  it('sends SNI for the name, verifies the certificate against it and reports valid_to', async () => {
    const result = await guardedRequest(request('https://vigil-tls.test/'), { resolve: dns.resolve, connect: toLoopback(secure.port, trusting) });
    expect(result).toMatchObject({ ok: true, statusCode: 200, bodyText: 'sni=vigil-tls.test' });
    expect(result.ok && result.tlsCertValidTo?.toISOString()).toBe(TEST_CERT_VALID_TO);
  });

  it('maps an untrusted certificate to TLS_ERROR', async () => {
    const result = await guardedRequest(request('https://vigil-tls.test/'), { resolve: dns.resolve, connect: toLoopback(secure.port, nodeConnect) });
    expect(result).toMatchObject({ ok: false, failureReason: 'TLS_ERROR' });
  });

  it('checks the certificate against the URL host, not the pinned address', async () => {
    const result = await guardedRequest(request('https://other-name.test/'), { resolve: dns.resolve, connect: toLoopback(secure.port, trusting) });
    expect(result).toMatchObject({ ok: false, failureReason: 'TLS_ERROR', message: expect.stringMatching(/ERR_TLS_CERT_ALTNAME_INVALID/) });
  });

  it('maps a failed handshake (https to a plain http port) to TLS_ERROR, not a throw', async () => {
    const result = await guardedRequest(request(`https://127.0.0.1:${plain.port}/`), { allowLoopback: true, connect: trusting });
    expect(result).toMatchObject({ ok: false, failureReason: 'TLS_ERROR' });
  });
});
