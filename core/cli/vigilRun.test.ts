import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/vigil-run.mjs', import.meta.url));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Received = { method: string; path: string; rid: string | null; body: string };

/** A stand-in for Vigil on a loopback ephemeral port: records every request, answers as told. */
async function startReceiver(answer: (path: string, seen: number) => number = () => 200) {
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      received.push({ method: req.method ?? '', path: url.pathname, rid: url.searchParams.get('rid'), body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = answer(url.pathname, received.filter((r) => r.path === url.pathname).length);
      res.end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return { received, pingUrl: `http://127.0.0.1:${port}/api/signals/ping/tok123`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Runs the shipped bin as a real child process, the way cron would. */
function runCli(args: string[], options: { env?: Record<string, string>; onStdout?: (text: string, child: ReturnType<typeof spawn>) => void } = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, VIGIL_PING_URL: '', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    options.onStdout?.(stdout, child);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-run-'));
});
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('vigil-run as a child process', () => {
  it('sends start and success with one fresh run id, forwards output, exits 0', async () => {
    receiver = await startReceiver();
    const result = await runCli(['--url', receiver.pingUrl, '--', 'sh', '-c', 'echo out-line; echo err-line >&2']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('out-line\n');
    expect(result.stderr).toBe('err-line\n');
    expect(receiver.received.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/signals/ping/tok123/start', 'POST /api/signals/ping/tok123']);
    const [start, end] = receiver.received;
    expect(start?.rid).toMatch(UUID);
    expect(end?.rid).toBe(start?.rid);
    expect(end?.body).toBe('out-line\nerr-line\n');
  });

  it('takes the URL from VIGIL_PING_URL, and each run gets its own id', async () => {
    receiver = await startReceiver();
    await runCli(['--', 'true'], { env: { VIGIL_PING_URL: receiver.pingUrl } });
    await runCli(['--', 'true'], { env: { VIGIL_PING_URL: receiver.pingUrl } });
    const rids = new Set(receiver.received.map((r) => r.rid));
    expect(receiver.received).toHaveLength(4);
    expect(rids.size).toBe(2);
  });

  it('reports exit code 3 to Vigil and to the caller', async () => {
    receiver = await startReceiver();
    const result = await runCli(['--url', receiver.pingUrl, '--', 'sh', '-c', 'echo broken; exit 3']);
    expect(result.code).toBe(3);
    expect(receiver.received.map((r) => r.path)).toEqual(['/api/signals/ping/tok123/start', '/api/signals/ping/tok123/3']);
    expect(receiver.received[1]?.body).toBe('broken\n');
  });

  it('sends the last 10 KB of output as the body', async () => {
    receiver = await startReceiver();
    // 38,000 bytes of numbered lines on stdout, then an end marker.
    const script = 'i=0; while [ $i -lt 2000 ]; do printf "line %013d\\n" $i; i=$((i+1)); done; echo THE-END >&2; exit 1';
    const result = await runCli(['--url', receiver.pingUrl, '--', 'sh', '-c', script]);
    expect(result.code).toBe(1);
    const end = receiver.received.find((r) => r.path.endsWith('/1'));
    const all = `${result.stdout}${result.stderr}`;
    expect(Buffer.byteLength(all)).toBeGreaterThan(30_000);
    expect(Buffer.byteLength(end?.body ?? '')).toBe(10_240);
    expect(end?.body).toBe(all.slice(-10_240));
    expect(end?.body.endsWith('THE-END\n')).toBe(true);
  });

  it('still runs the command and keeps its exit code when Vigil is down, with one warning line', async () => {
    const down = await startReceiver();
    const url = down.pingUrl;
    await down.close(); // nothing listens on that port any more
    const marker = join(dir, 'ran');
    const began = process.hrtime.bigint();
    const result = await runCli(['--url', url, '--', 'sh', '-c', 'echo yes > "$1"; exit 5', 'sh', marker]);
    const seconds = Number(process.hrtime.bigint() - began) / 1e9;
    expect(result.code).toBe(5);
    expect(readFileSync(marker, 'utf8')).toBe('yes\n');
    const warnings = result.stderr.split('\n').filter((line) => line.startsWith('vigil-run:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toContain('tok123'); // the token is a secret; cron mails it to people
    expect(seconds).toBeLessThan(15);
  });

  it('retries a ping the server could not take, and reports the exit code on its own path', async () => {
    receiver = await startReceiver((path, seen) => (path.endsWith('/start') && seen === 1 ? 503 : 200));
    const result = await runCli(['--url', receiver.pingUrl, '--', 'sh', '-c', 'exit 2']);
    expect(result.code).toBe(2);
    expect(receiver.received.map((r) => r.path.replace('/api/signals/ping/tok123', ''))).toEqual(['/start', '/start', '/2']);
    expect(result.stderr).toBe('');
  });

  it('warns (once, token redacted) when the exit-code ping is refused, and keeps the exit code', async () => {
    receiver = await startReceiver((path) => (path.endsWith('/2') ? 404 : 200));
    const result = await runCli(['--url', receiver.pingUrl, '--', 'sh', '-c', 'exit 2']);
    expect(result.code).toBe(2);
    expect(receiver.received.map((r) => r.path.replace('/api/signals/ping/tok123', ''))).toEqual(['/start', '/2']);
    expect(result.stderr).toMatch(/^vigil-run: http:\/\/127\.0\.0\.1:\d+\/api\/signals\/ping\/…\/2 answered HTTP 404\n$/);
  });

  it('passes SIGTERM through to the command', async () => {
    receiver = await startReceiver();
    const marker = join(dir, 'term');
    const script = 'trap \'echo got-term > "$1"; kill $pid 2>/dev/null; exit 7\' TERM; sleep 30 & pid=$!; echo ready; wait $pid';
    let sent = false;
    const result = await runCli(['--url', receiver.pingUrl, '--', 'sh', '-c', script, 'sh', marker], {
      onStdout: (text, child) => {
        if (!sent && text.includes('ready')) {
          sent = true;
          child.kill('SIGTERM');
        }
      },
    });
    expect(existsSync(marker) && readFileSync(marker, 'utf8')).toBe('got-term\n');
    expect(result.code).toBe(7);
    expect(receiver.received.map((r) => r.path)).toContain('/api/signals/ping/tok123/7');
  });

  it('dies of the same signal when the command does', async () => {
    receiver = await startReceiver();
    let sent = false;
    const result = await runCli(['--url', receiver.pingUrl, '--', 'sh', '-c', 'echo ready; exec sleep 30'], {
      onStdout: (text, child) => {
        if (!sent && text.includes('ready')) {
          sent = true;
          child.kill('SIGTERM');
        }
      },
    });
    expect(result.signal).toBe('SIGTERM');
    expect(receiver.received.map((r) => r.path)).toContain('/api/signals/ping/tok123/143');
  });

  it('refuses a missing command or URL with usage and exit 2, pinging nothing', async () => {
    expect((await runCli(['--', 'true'])).code).toBe(2);
    const noCommand = await runCli(['--url', 'http://127.0.0.1:1/x']);
    expect(noCommand.code).toBe(2);
    expect(noCommand.stderr).toContain('usage: vigil-run');
    expect((await runCli(['--url', 'ftp://example/x', '--', 'true'])).code).toBe(2);
  });
});
