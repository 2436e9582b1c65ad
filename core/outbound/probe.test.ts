import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeConnect } from './connect.js';
import { PROBE_FAILURE_REASONS, runProbe, type HttpProbeConfig } from './probe.js';
import {
  fakeResolver,
  fakeResponse,
  forbiddenResolver,
  installDnsTripwire,
  spyConnect,
  startLoopbackServer,
  startLoopbackTlsServer,
  toLoopback,
  type Handler,
  type LoopbackServer,
} from '../../test/support/outbound.js';
import { TEST_CERT_PEM, TEST_CERT_VALID_TO, TEST_KEY_PEM } from '../../test/support/tlsFixture.js';

/** runProbe: the guarded exchange judged against the check's expected status range. */

let server: LoopbackServer;
let secure: LoopbackServer;
let tripwire: ReturnType<typeof installDnsTripwire>;

beforeAll(async () => {
  const handler: Handler = (request, response) => {
    const status = Number(/^\/status\/(\d{3})$/.exec(request.url ?? '')?.[1] ?? 200);
    response.writeHead(status).end();
  };
  server = await startLoopbackServer(handler);
  secure = await startLoopbackTlsServer(TEST_CERT_PEM, TEST_KEY_PEM, handler);
  tripwire = installDnsTripwire();
});

afterAll(async () => {
  tripwire.restore();
  expect(tripwire.calls).toEqual([]);
  await Promise.all([server.close(), secure.close()]);
});

function config(url: string, overrides: Partial<HttpProbeConfig> = {}): HttpProbeConfig {
  return {
    url,
    method: 'GET',
    customHeaders: {},
    timeoutMs: 5000,
    expectedStatusMin: 200,
    expectedStatusMax: 399,
    followRedirects: true,
    maxRedirects: 3,
    blockHttpDowngrade: true,
    ...overrides,
  };
}

const loopback = { allowLoopback: true, resolve: forbiddenResolver } as const;

describe('runProbe', () => {
  it('succeeds inside the expected range', async () => {
    const run = await runProbe(config(`${server.origin}/status/204`), loopback);
    expect(run).toMatchObject({ ok: true, statusCode: 204, failureReason: null, sslExpiresAt: null });
    expect(run.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it.each([
    [500, 200, 399],
    [404, 200, 399],
    [200, 300, 399],
    [301, 200, 299],
  ])('fails %i outside [%i, %i] with UNEXPECTED_STATUS', async (status, min, max) => {
    const run = await runProbe(config(`${server.origin}/status/${status}`, { expectedStatusMin: min, expectedStatusMax: max, followRedirects: false }), loopback);
    expect(run).toMatchObject({ ok: false, statusCode: status, failureReason: 'UNEXPECTED_STATUS' });
  });

  it('accepts the range bounds themselves', async () => {
    const run = await runProbe(config(`${server.origin}/status/418`, { expectedStatusMin: 418, expectedStatusMax: 418 }), loopback);
    expect(run).toMatchObject({ ok: true, statusCode: 418 });
  });

  it('records SSRF_BLOCKED with no status and never connects', async () => {
    const spy = spyConnect();
    const run = await runProbe(config('http://169.254.169.254/latest/meta-data/'), { resolve: forbiddenResolver, connect: spy.connect });
    expect(run).toEqual({ ok: false, statusCode: null, latencyMs: expect.any(Number), failureReason: 'SSRF_BLOCKED', sslExpiresAt: null });
    expect(spy.calls).toHaveLength(0);
  });

  it('keeps the last status when a redirect limit ends the run', async () => {
    const dns = fakeResolver({ 'loop.example': ['93.184.216.34'] });
    const connect = async () => fakeResponse(302, { headers: { location: '/again' } });
    const run = await runProbe(config('http://loop.example/', { maxRedirects: 2 }), { resolve: dns.resolve, connect });
    expect(run).toMatchObject({ ok: false, statusCode: 302, failureReason: 'TOO_MANY_REDIRECTS' });
  });

  it('sends the configured method and custom headers', async () => {
    const spy = spyConnect(async () => fakeResponse(200));
    const dns = fakeResolver({ 'api.example.com': ['93.184.216.34'] });
    await runProbe(config('https://api.example.com/health', { method: 'HEAD', customHeaders: { 'X-Api-Key': 'k' } }), {
      resolve: dns.resolve,
      connect: spy.connect,
    });
    expect(spy.calls[0]).toMatchObject({ method: 'HEAD', headers: { 'x-api-key': 'k' } });
  });

  it('reports the certificate expiry of an https target as ISO 8601', async () => {
    const dns = fakeResolver({ 'vigil-tls.test': ['93.184.216.34'] });
    const connect = toLoopback(secure.port, createNodeConnect({ ca: TEST_CERT_PEM }));
    const run = await runProbe(config('https://vigil-tls.test/status/200'), { resolve: dns.resolve, connect });
    expect(run).toMatchObject({ ok: true, statusCode: 200, sslExpiresAt: TEST_CERT_VALID_TO });
  });

  it('reports the expiry even when the status is unexpected', async () => {
    const validTo = new Date('2030-01-02T03:04:05.000Z');
    const dns = fakeResolver({ 'down.example': ['93.184.216.34'] });
    const run = await runProbe(config('https://down.example/'), { resolve: dns.resolve, connect: async () => fakeResponse(503, { tlsCertValidTo: validTo }) });
    expect(run).toMatchObject({ ok: false, failureReason: 'UNEXPECTED_STATUS', sslExpiresAt: validTo.toISOString() });
  });

  it('lists every run failure reason, UNEXPECTED_STATUS included', () => {
    expect([...PROBE_FAILURE_REASONS].sort()).toEqual([
      'CONNECTION_ERROR',
      'DNS_ERROR',
      'HTTP_DOWNGRADE_BLOCKED',
      'SSRF_BLOCKED',
      'TIMEOUT',
      'TLS_ERROR',
      'TOO_MANY_REDIRECTS',
      'UNEXPECTED_STATUS',
    ]);
  });
});
