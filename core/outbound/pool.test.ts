import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeResolver, installDnsTripwire, spyConnect, startLoopbackTlsServer } from '../../test/support/outbound.js';
import { TEST_CERT_PEM, TEST_KEY_PEM } from '../../test/support/tlsFixture.js';
import { createNodeConnect, nodeConnect } from './connect.js';
import { DestinationPools } from './pool.js';
import { guardedRequest } from './request.js';
import type { Connect, GuardedRequestInput, Resolver } from './types.js';

/**
 * Kept-alive sockets for alert deliveries: reused only by a request whose own guard decision
 * approved the very same destination. Two receivers on one port, at 127.0.0.1 and 127.0.0.2,
 * stand for a name's old and new address (loopback only: `allowLoopback`, as the local runtime's
 * VIGIL_PROBE_ALLOW_PRIVATE opens it); each counts the connections it accepted.
 */

type Receiver = { port: number; connections: Socket[]; requests: string[]; close(): Promise<void> };

function receiver(address: string, port: number, answer: (request: http.IncomingMessage, response: http.ServerResponse) => void = (_, r) => r.end('ok')): Promise<Receiver> {
  const connections: Socket[] = [];
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(`${request.headers.host ?? ''}${request.url ?? ''}`);
    request.resume();
    request.on('end', () => answer(request, response));
  });
  server.on('connection', (socket: Socket) => connections.push(socket));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        connections,
        requests,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    );
  });
}

let old: Receiver;
let moved: Receiver;
let port: number;
let redirecting = false;
let tripwire: ReturnType<typeof installDnsTripwire>;
let pools: DestinationPools;

beforeAll(async () => {
  old = await receiver('127.0.0.1', 0, (_, response) => {
    if (redirecting) response.writeHead(302, { location: `http://moved.test:${port}/next` }).end();
    else response.end('ok');
  });
  port = old.port;
  moved = await receiver('127.0.0.2', port);
  tripwire = installDnsTripwire();
});

afterEach(() => {
  pools.close();
  redirecting = false;
});

afterAll(async () => {
  tripwire.restore();
  expect(tripwire.calls).toEqual([]);
  await Promise.all([old.close(), moved.close()]);
});

/** A fresh set of pools per test, so what one test left idle is never another's to reuse. */
function pooled(options?: ConstructorParameters<typeof DestinationPools>[0]): Connect {
  pools = new DestinationPools(options);
  return createNodeConnect({ pools });
}

const post = (url: string, followRedirects = false): GuardedRequestInput => ({
  url,
  method: 'POST',
  body: '{"type":"incident.opened"}',
  timeoutMs: 5000,
  followRedirects,
  maxRedirects: followRedirects ? 1 : 0,
  blockHttpDowngrade: true,
});

/** A resolver whose answers the test changes between requests (a DNS change). */
function changingResolver(answers: Record<string, string[]>): { resolve: Resolver; answers: Record<string, string[]> } {
  return { resolve: (hostname) => fakeResolver(answers).resolve(hostname), answers };
}

const send = (url: string, resolve: Resolver, via: Connect, followRedirects = false) => guardedRequest(post(url, followRedirects), { resolve, connect: via, allowLoopback: true });

describe('kept-alive sockets for alert deliveries', () => {
  it('reuse the socket for a request whose guard approved the same address', async () => {
    const via = pooled();
    const dns = changingResolver({ 'hooks.test': ['127.0.0.1'] });
    const before = old.connections.length;
    for (const path of ['/a', '/b', '/c']) expect(await send(`http://hooks.test:${port}${path}`, dns.resolve, via)).toMatchObject({ ok: true, statusCode: 200 });
    expect(old.connections.length - before).toBe(1);
    expect(pools.idleSockets()).toBe(1);
  });

  it("keep a batch's burst: deliveries sent at once reuse their sockets in the next burst", async () => {
    const via = pooled();
    const dns = changingResolver({ 'hooks.test': ['127.0.0.1'] });
    const before = old.connections.length;
    // The local runtime's batch of 25 (core/runtime.ts), all sent at once, twice.
    const burst = () => Promise.all(Array.from({ length: 25 }, (_, i) => send(`http://hooks.test:${port}/${i}`, dns.resolve, via)));
    const first = await burst();
    const opened = old.connections.length - before;
    expect(first.every((result) => result.ok)).toBe(true);
    expect(pools.idleSockets()).toBe(opened);
    expect((await burst()).every((result) => result.ok)).toBe(true);
    // No connection beyond the first burst's: with 4 idle kept, the second burst opened 21 more.
    expect(old.connections.length - before).toBe(opened);
    expect(opened).toBeGreaterThan(4);
  });

  it('are not reused once the name resolves to another address: the new one gets its own connection', async () => {
    const via = pooled();
    const dns = changingResolver({ 'hooks.test': ['127.0.0.1'] });
    expect(await send(`http://hooks.test:${port}/first`, dns.resolve, via)).toMatchObject({ ok: true });
    const [oldConnections, oldRequests, movedConnections] = [old.connections.length, old.requests.length, moved.connections.length];
    dns.answers['hooks.test'] = ['127.0.0.2'];
    expect(await send(`http://hooks.test:${port}/second`, dns.resolve, via)).toMatchObject({ ok: true });
    expect([old.connections.length, old.requests.length]).toEqual([oldConnections, oldRequests]);
    expect(moved.connections.length - movedConnections).toBe(1);
    expect(moved.requests.at(-1)).toBe(`hooks.test:${port}/second`);
  });

  it('are not shared between host names, even at one address', async () => {
    const via = pooled();
    const dns = changingResolver({ 'one.test': ['127.0.0.1'], 'two.test': ['127.0.0.1'] });
    const before = old.connections.length;
    for (const name of ['one.test', 'two.test', 'one.test', 'two.test']) expect(await send(`http://${name}:${port}/`, dns.resolve, via)).toMatchObject({ ok: true });
    expect(old.connections.length - before).toBe(2);
  });

  it('leave a name that now resolves to a private address refused, the idle socket to the old one unused', async () => {
    const spy = spyConnect(pooled());
    const dns = changingResolver({ 'hooks.test': ['127.0.0.1'] });
    expect(await send(`http://hooks.test:${port}/`, dns.resolve, spy.connect)).toMatchObject({ ok: true });
    const served = old.requests.length;
    expect(pools.idleSockets()).toBe(1);
    for (const rebound of ['10.0.0.1', '169.254.169.254', '::ffff:192.168.0.1']) {
      dns.answers['hooks.test'] = [rebound];
      expect(await send(`http://hooks.test:${port}/`, dns.resolve, spy.connect)).toMatchObject({ ok: false, failureReason: 'SSRF_BLOCKED' });
    }
    expect(spy.calls).toHaveLength(1);
    expect(old.requests.length).toBe(served);
  });

  it('never carry a redirect to another address: the hop is judged and connected on its own', async () => {
    const via = pooled();
    const dns = changingResolver({ 'hooks.test': ['127.0.0.1'], 'moved.test': ['127.0.0.2'] });
    redirecting = true;
    const [oldRequests, movedConnections] = [old.requests.length, moved.connections.length];
    expect(await send(`http://hooks.test:${port}/`, dns.resolve, via, true)).toMatchObject({ ok: true, finalUrl: `http://moved.test:${port}/next` });
    expect(old.requests.length - oldRequests).toBe(1);
    expect(moved.connections.length - movedConnections).toBe(1);
    expect(moved.requests.at(-1)).toBe(`moved.test:${port}/next`);
  });

  it('are bounded: past the last destination kept, the least recently used one is closed', async () => {
    const via = pooled({ maxDestinations: 1 });
    const dns = changingResolver({ 'one.test': ['127.0.0.1'], 'two.test': ['127.0.0.1'] });
    expect(await send(`http://one.test:${port}/`, dns.resolve, via)).toMatchObject({ ok: true });
    const first = old.connections.at(-1);
    expect(await send(`http://two.test:${port}/`, dns.resolve, via)).toMatchObject({ ok: true });
    expect(pools.idleSockets()).toBe(1);
    await expect.poll(() => first?.destroyed).toBe(true);
  });

  it('are not lent between connectors that trust different anchors', async () => {
    const secure = await startLoopbackTlsServer(TEST_CERT_PEM, TEST_KEY_PEM, (_, response) => response.end('ok'));
    try {
      pooled();
      const trusting = createNodeConnect({ pools, ca: TEST_CERT_PEM });
      const systemRoots = createNodeConnect({ pools });
      const dns = changingResolver({ 'vigil-tls.test': ['127.0.0.1'] });
      expect(await send(`https://vigil-tls.test:${secure.port}/`, dns.resolve, trusting)).toMatchObject({ ok: true });
      expect(pools.idleSockets()).toBe(1);
      // The socket verified against the test anchor is idle in the pools, but not this connector's to use.
      expect(await send(`https://vigil-tls.test:${secure.port}/`, dns.resolve, systemRoots)).toMatchObject({ ok: false, failureReason: 'TLS_ERROR' });
    } finally {
      pools.close();
      await secure.close();
    }
  });

  it('send a request again on a fresh connection when the server closed the reused socket without answering', async () => {
    const perSocket = new Map<Socket, number>();
    const closing = await receiver('127.0.0.1', 0, (request, response) => {
      const served = (perSocket.get(request.socket) ?? 0) + 1;
      perSocket.set(request.socket, served);
      // The race a kept-alive client meets: the server gives up on the connection as the request arrives.
      if (served > 1) request.socket.destroy();
      else response.end('ok');
    });
    try {
      const via = pooled();
      const dns = changingResolver({ 'hooks.test': ['127.0.0.1'] });
      for (let i = 0; i < 2; i++) expect(await send(`http://hooks.test:${closing.port}/`, dns.resolve, via)).toMatchObject({ ok: true, statusCode: 200 });
      expect(closing.connections).toHaveLength(2);
      expect(closing.requests).toHaveLength(3);
    } finally {
      await closing.close();
    }
  });

  it("are never kept by the probes' connector: each request opens its own connection", async () => {
    pooled();
    const dns = changingResolver({ 'hooks.test': ['127.0.0.1'] });
    const before = old.connections.length;
    for (let i = 0; i < 2; i++) expect(await send(`http://hooks.test:${port}/`, dns.resolve, nodeConnect)).toMatchObject({ ok: true });
    expect(old.connections.length - before).toBe(2);
  });
});
