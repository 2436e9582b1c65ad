import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { parseArgs } from 'node:util';
import { AGAIN, retry } from '../retry.js';
import { OutputTail } from './outputTail.js';

/** The server's ping body limit (signals/schema.ts PING_PAYLOAD_MAX_BYTES): the tail never trips a 413. */
export const TAIL_BYTES = 10_240;

/** Bounded so a dead Vigil costs a cron job seconds, not minutes: 3 tries, at most ~7 s in all. */
export const PING_ATTEMPTS = 3;
export const PING_TIMEOUT_MS = 2_000;
export const PING_BACKOFF_MS = [250, 750] as const;

export const FORWARDED_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
type ForwardedSignal = (typeof FORWARDED_SIGNALS)[number];

const USAGE = 'usage: vigil-run [--url <ping-url>] [--report-dependencies] -- <command> [args...]   (VIGIL_PING_URL, when set, wins over --url)';

/** The environment variable that names the ping URL; never passed on to the command. */
export const PING_URL_VARIABLE = 'VIGIL_PING_URL';

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

type Parsed = { url: URL; command: string; args: string[]; reportDependencies: boolean; notice?: string } | { usage: string; help?: true };

/** `util.parseArgs` (Node's own, maintained with Node); everything after `--` is the command. */
export function parseCommandLine(argv: string[], env: Record<string, string | undefined>): Parsed {
  // `npx vigil-run -- --url X -- cmd` (npm's own advice for passing flags) may hand the first `--`
  // on. Only our own options right after it mark it as npm's: `-- sh -c x -- y` is a command.
  if (argv[0] === '--' && /^(--url(=.*)?|--help|-h|--report-dependencies)$/.test(argv[1] ?? '')) argv = argv.slice(1);
  let values: { url?: string | undefined; help?: boolean | undefined; 'report-dependencies'?: boolean | undefined };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: { url: { type: 'string' }, help: { type: 'boolean', short: 'h' }, 'report-dependencies': { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    return { usage: `vigil-run: ${error instanceof Error ? error.message : String(error)}\n${USAGE}` };
  }
  if (values.help) return { usage: USAGE, help: true };
  const [command, ...args] = positionals;
  if (command === undefined) return { usage: `vigil-run: no command given\n${USAGE}` };
  // The environment wins: a URL in argv is visible to every user of the machine (`ps`), the
  // environment is not, so a crontab that sets the variable is the one that meant it.
  const fromEnv = env[PING_URL_VARIABLE] || undefined;
  const raw = fromEnv ?? values.url;
  if (!raw) return { usage: `vigil-run: no ping URL (--url or ${PING_URL_VARIABLE})\n${USAGE}` };
  // The URL itself stays out of the message: it carries the check's token, and cron mails stderr around.
  if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) return { usage: `vigil-run: the ping URL is not an http(s) URL\n${USAGE}` };
  const parsed: Parsed = { url: new URL(raw), command, args, reportDependencies: values['report-dependencies'] === true };
  if (fromEnv !== undefined && values.url !== undefined && values.url !== fromEnv)
    parsed.notice = `both ${PING_URL_VARIABLE} and --url are set; pinging the one in ${PING_URL_VARIABLE}`;
  return parsed;
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
export async function deliver(io: RunIo, url: URL, body: string | Uint8Array, options: { warn?: (message: string) => void } = {}): Promise<number | undefined> {
  const warn = options.warn ?? ((message: string) => io.stderr.write(`vigil-run: ${message}\n`));
  let problem = '';
  // The bytes as they are (a copy the fetch types accept): decoding them could only grow them.
  const payload = typeof body === 'string' ? body : new Uint8Array(body);
  return retry<number | undefined>(
    async () => {
      try {
        const response = await io.fetch(url, {
          method: 'POST',
          body: payload,
          headers: { 'content-type': 'text/plain; charset=utf-8' },
          signal: AbortSignal.timeout(PING_TIMEOUT_MS),
        });
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
      return AGAIN;
    },
    { attempts: PING_ATTEMPTS, delayMs: (attempt) => PING_BACKOFF_MS[Math.min(attempt - 1, PING_BACKOFF_MS.length) - 1] ?? 0, pause: io.sleep },
    () => {
      warn(`could not ping ${redact(url)} (${problem}) after ${PING_ATTEMPTS} attempts; the command's exit code is unaffected`);
      return undefined;
    },
  );
}

/**
 * Ping URLs carry a secret: the check's token (`/ping/<token>`) or, in the deprecated key-in-URL
 * form, a ping key (`/p/<pingKey>/<slug>`). A warning in a cron mail shows only where it went;
 * the query is left out too.
 */
export const redact = (url: URL): string => `${url.origin}${url.pathname.replace(/\/ping\/[^/]+/, '/ping/…').replace(/\/p\/[^/]+/, '/p/…')}`;

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
export const exitCodeOf = (code: number | null, signal: NodeJS.Signals | null): number => code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 1);

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
  if (parsed.notice) io.stderr.write(`vigil-run: ${parsed.notice}\n`);
  const runId = io.randomUUID();
  const warn = warnOnce(io);
  const started = deliver(io, pingUrl(parsed.url, 'start', runId), '', { warn });
  const tail = new OutputTail(TAIL_BYTES);
  const outcome = await runCommand(io, parsed.command, parsed.args, tail);
  await started;
  const code = exitCodeOf(outcome.code, outcome.signal);
  const body = endBody(tail, parsed.reportDependencies);
  // `/<code>` (0-255) is the exit-code path: Vigil records the code with the signal, 0 as a success.
  await deliver(io, pingUrl(parsed.url, code === 0 ? '' : String(code), runId), body, { warn });
  return outcome;
}

/** Vigil reads a JSON body holding `dependencies` as a dependency report (spec "Signals"). */
function readsAsReport(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && 'dependencies' in value;
  } catch {
    return false;
  }
}

const NOT_A_REPORT = '[vigil-run] output follows; it is read as a dependency report only with --report-dependencies\n';

/**
 * The end ping's body, at most TAIL_BYTES bytes. Without `--report-dependencies` it is the output
 * tail, and output that happens to read as a report (a job printing JSON with a `dependencies`
 * key) goes behind a first line that keeps it text. With it, the last output line that is a
 * report is sent as the report, with as much of the output tail as fits beside it (`output`).
 */
export function endBody(tail: OutputTail, reportDependencies: boolean): Buffer {
  const text = tail.text();
  if (!reportDependencies) {
    if (!readsAsReport(text)) return tail.bytes();
    const notice = Buffer.from(NOT_A_REPORT);
    return Buffer.concat([notice, tail.bytes(notice.byteLength)]);
  }
  if (readsAsReport(text)) return tail.bytes();
  const line = text
    .split('\n')
    .map((candidate) => candidate.trim())
    .findLast(readsAsReport);
  if (line === undefined) return tail.bytes();
  const { dependencies } = JSON.parse(line) as { dependencies: unknown };
  for (let output = text; ; ) {
    const body = Buffer.from(JSON.stringify({ dependencies, output }));
    if (body.byteLength <= TAIL_BYTES) return body;
    // A report too large even alone is sent as the plain tail (Vigil takes at most 20 dependencies anyway).
    if (output === '') return tail.bytes();
    output = output.slice(Math.max(1, body.byteLength - TAIL_BYTES));
  }
}

function runCommand(io: RunIo, command: string, args: string[], tail: OutputTail): Promise<Outcome> {
  return new Promise((resolve) => {
    // The ping URL is the check's secret: the command has no use for it, and whatever it runs
    // (and logs its environment) should not learn it.
    const env = { ...io.env };
    delete env[PING_URL_VARIABLE];
    const child = io.spawn(command, args, { stdio: ['inherit', 'pipe', 'pipe'], env });
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
