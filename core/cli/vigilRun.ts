import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { parseArgs } from 'node:util';
import { OutputTail } from './outputTail.js';

/** The server's ping body limit (signals/schema.ts PING_PAYLOAD_MAX_BYTES): the tail never trips a 413. */
export const TAIL_BYTES = 10_240;

/** Bounded so a dead Vigil costs a cron job seconds, not minutes: 3 tries, at most ~7 s in all. */
export const PING_ATTEMPTS = 3;
export const PING_TIMEOUT_MS = 2_000;
export const PING_BACKOFF_MS = [250, 750] as const;

export const FORWARDED_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
type ForwardedSignal = (typeof FORWARDED_SIGNALS)[number];

const USAGE = 'usage: vigil-run [--url <ping-url>] -- <command> [args...]   (or set VIGIL_PING_URL)';

/** How the command ended, in the terms the caller's shell would see. */
export type Outcome = { code: number | null; signal: NodeJS.Signals | null };

/** Everything the wrapper touches outside itself, so a test can stand in for any of it. */
export type RunIo = {
  env: Record<string, string | undefined>;
  fetch: typeof fetch;
  spawn: (command: string, args: string[], options: SpawnOptions) => ChildProcess;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Subscribes to a signal the wrapper receives; returns the unsubscribe. */
  onSignal: (signal: ForwardedSignal, handler: () => void) => () => void;
  sleep: (ms: number) => Promise<void>;
  randomUUID: () => string;
};

type Parsed = { url: URL; command: string; args: string[] } | { usage: string; help?: true };

/** `util.parseArgs` (Node's own, maintained with Node); everything after `--` is the command. */
export function parseCommandLine(argv: string[], env: Record<string, string | undefined>): Parsed {
  // `npx vigil-run -- --url X -- cmd` (npm's own advice for passing flags) may hand the first `--`
  // on. Only our own options right after it mark it as npm's: `-- sh -c x -- y` is a command.
  if (argv[0] === '--' && /^(--url(=.*)?|--help|-h)$/.test(argv[1] ?? '')) argv = argv.slice(1);
  let values: { url?: string | undefined; help?: boolean | undefined };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: { url: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true }));
  } catch (error) {
    return { usage: `vigil-run: ${error instanceof Error ? error.message : String(error)}\n${USAGE}` };
  }
  if (values.help) return { usage: USAGE, help: true };
  const [command, ...args] = positionals;
  if (command === undefined) return { usage: `vigil-run: no command given\n${USAGE}` };
  const raw = values.url ?? env.VIGIL_PING_URL;
  if (!raw) return { usage: `vigil-run: no ping URL (--url or VIGIL_PING_URL)\n${USAGE}` };
  // The URL itself stays out of the message: it carries the check's token, and cron mails stderr around.
  if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) return { usage: `vigil-run: the ping URL is not an http(s) URL\n${USAGE}` };
  return { url: new URL(raw), command, args };
}

/** `<ping>/<suffix>?rid=<runId>`, keeping whatever query the ping URL already had. */
export function pingUrl(base: URL, suffix: string, runId: string): URL {
  const url = new URL(base);
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = suffix ? `${path}/${suffix}` : path;
  url.searchParams.set('rid', runId);
  return url;
}

/** A ping worth another try: the network failed, timed out, or the server was briefly unable. */
const retryable = (status: number): boolean => status === 408 || status === 429 || status >= 500;

/**
 * One ping with bounded retries. Never throws: a ping that cannot be delivered is one line on
 * stderr, because the job matters more than its report. Returns the final HTTP status, undefined
 * when no answer came.
 */
export async function deliver(io: RunIo, url: URL, body: string, options: { warn?: (message: string) => void } = {}): Promise<number | undefined> {
  const warn = options.warn ?? ((message: string) => io.stderr.write(`vigil-run: ${message}\n`));
  let problem = '';
  for (let attempt = 0; attempt < PING_ATTEMPTS; attempt++) {
    if (attempt > 0) await io.sleep(PING_BACKOFF_MS[Math.min(attempt, PING_BACKOFF_MS.length) - 1] ?? 0);
    try {
      const response = await io.fetch(url, { method: 'POST', body, headers: { 'content-type': 'text/plain; charset=utf-8' }, signal: AbortSignal.timeout(PING_TIMEOUT_MS) });
      await response.body?.cancel().catch(() => undefined);
      if (response.ok) return response.status;
      problem = `HTTP ${response.status}`;
      if (!retryable(response.status)) {
        warn(`${redact(url)} answered ${problem}`);
        return response.status;
      }
    } catch (error) {
      problem = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    }
  }
  warn(`could not ping ${redact(url)} (${problem}) after ${PING_ATTEMPTS} attempts; the command's exit code is unaffected`);
  return undefined;
}

/** Ping URLs carry the check's secret token; a warning in a cron mail shows only where it went. */
const redact = (url: URL): string => `${url.origin}${url.pathname.replace(/\/ping\/[^/]+/, '/ping/…')}`;

/** One warning per run: a Vigil that is down for the start ping is most likely down for the end one too. */
function warnOnce(io: RunIo): (message: string) => void {
  let warned = false;
  return (message) => {
    if (warned) return;
    warned = true;
    io.stderr.write(`vigil-run: ${message}\n`);
  };
}

/** 128 + signal number, as a shell reports a command killed by a signal. */
export const exitCodeOf = (code: number | null, signal: NodeJS.Signals | null): number =>
  code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 1);

/**
 * Runs the wrapped command between a start ping and its end ping. The start ping goes out while
 * the command starts (a slow Vigil never delays the job), and the end ping waits for it so the
 * server sees them in order. Returns how the command ended; the caller exits the same way.
 */
export async function vigilRun(argv: string[], io: RunIo): Promise<Outcome> {
  const parsed = parseCommandLine(argv, io.env);
  if ('usage' in parsed) {
    (parsed.help ? io.stdout : io.stderr).write(`${parsed.usage}\n`);
    return { code: parsed.help ? 0 : 2, signal: null };
  }
  const runId = io.randomUUID();
  const warn = warnOnce(io);
  const started = deliver(io, pingUrl(parsed.url, 'start', runId), '', { warn });
  const tail = new OutputTail(TAIL_BYTES);
  const outcome = await runCommand(io, parsed.command, parsed.args, tail);
  await started;
  const code = exitCodeOf(outcome.code, outcome.signal);
  const body = tail.text();
  // `/<code>` (0-255) is the exit-code path: Vigil records the code with the signal, 0 as a success.
  await deliver(io, pingUrl(parsed.url, code === 0 ? '' : String(code), runId), body, { warn });
  return outcome;
}

function runCommand(io: RunIo, command: string, args: string[], tail: OutputTail): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = io.spawn(command, args, { stdio: ['inherit', 'pipe', 'pipe'] });
    const unsubscribe = FORWARDED_SIGNALS.map((signal) => io.onSignal(signal, () => child.kill(signal)));
    // Backpressure passes through: a slow reader of our output slows the command, as it would unwrapped.
    const pipe = (from: NodeJS.ReadableStream | null, to: NodeJS.WritableStream) =>
      from?.on('data', (chunk: Buffer) => {
        tail.push(chunk);
        if (!to.write(chunk)) {
          from.pause();
          to.once('drain', () => from.resume());
        }
      });
    pipe(child.stdout, io.stdout);
    pipe(child.stderr, io.stderr);
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      for (const off of unsubscribe) off();
      resolve(outcome);
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      const message = `vigil-run: cannot run ${command}: ${error.message}\n`;
      io.stderr.write(message);
      tail.push(Buffer.from(message));
      // 127/126: what a shell answers for a command it cannot find or cannot execute.
      finish({ code: error.code === 'ENOENT' ? 127 : 126, signal: null });
    });
    // 'close', not 'exit': the pipes are drained by then, so the tail holds the last line.
    child.on('close', (code, signal) => finish({ code, signal }));
  });
}
