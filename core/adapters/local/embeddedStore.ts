import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { registerLocalTransport } from '../../store/localTransports.js';
import { inProcessTransport } from './inProcessTransport.js';

type DynaliteFactory = (options: {
  path?: string;
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
  /** Passed to LevelDB (classic-level) by patches/dynalite+4.0.0.patch. */
  levelOptions?: typeof STORE_LEVEL_OPTIONS;
}) => Server;

/**
 * LevelDB's options for a store on disk. A write buffer of 64 MB instead of LevelDB's 4 MB: each
 * full buffer becomes a level-0 file, and every fourth one is merged with the level-1 files it
 * overlaps, which with items keyed by hash is nearly all of them, so the compaction thread's CPU
 * per write falls with the buffer's size (measured: half at 16 MB, steady pings into 4,000 checks;
 * at 64 MB, the mass outage's compaction thread 0.82 s against 1.87 at 16 MB, and a check or an
 * incident written four times in a flip reaches a level-0 file once;
 * docs/adr/0010-embedded-store-patch.md). The cost is memory (up to two buffers per busy store)
 * and the write-ahead log of a buffer not yet flushed, replayed at the next open.
 */
const STORE_LEVEL_OPTIONS = { writeBufferSize: 64 << 20 };

/**
 * Where the embedded runtime keeps its queue lanes: a store of their own inside the data directory
 * (LevelDB leaves a directory it did not name alone), so one directory still holds everything.
 */
export const queueDataDir = (dataDir: string): string => (dataDir === ':memory:' ? dataDir : join(dataDir, 'queues'));

export type EmbeddedStore = { endpoint: string; close(): Promise<void> /** The child's process id when isolated. */; pid?: number };

/**
 * Starts dynalite (a DynamoDB-compatible server in pure Node) on a loopback port. `dataDir`
 * `:memory:` keeps nothing; any other path keeps the data on disk across restarts.
 */
export async function startEmbeddedStore(
  dataDir: string,
  port = 0,
  options: { isolate?: 'child' /** Extra flags for the child (the bench's `--cpu-prof`). */; nodeFlags?: readonly string[] } = {},
): Promise<EmbeddedStore> {
  if (options.isolate === 'child') return startInChild(dataDir, port, options.nodeFlags ?? []);
  const require = createRequire(import.meta.url);
  const dynalite = require('dynalite') as DynaliteFactory;
  const inMemory = dataDir === ':memory:';
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const server = dynalite({ ...(inMemory ? {} : { path: dataDir, levelOptions: STORE_LEVEL_OPTIONS }), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${address.port}`;
  // Clients made in this process skip the socket; other processes (test workers) use the port.
  const transport = inProcessTransport(server);
  const unregister = registerLocalTransport(endpoint, transport);
  return {
    endpoint,
    close: () =>
      new Promise<void>((resolve) => {
        unregister();
        transport.close();
        server.close(() => resolve());
      }),
  };
}

// The child is plain Node (no TypeScript loader): it only needs dynalite, whose path it is given.
const CHILD_SCRIPT = `
const dynalite = require(process.env.VIGIL_DYNALITE);
const dir = process.env.VIGIL_STORE_DIR;
const server = dynalite({ ...(dir === ':memory:' ? {} : { path: dir, levelOptions: JSON.parse(process.env.VIGIL_STORE_LEVEL) }), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(Number(process.env.VIGIL_STORE_PORT), '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\\n'));
process.stdin.on('end', () => server.close(() => process.exit(0)));
process.stdin.resume();
`;

/**
 * dynalite allocates a fresh object graph per request (JSON in, JSON out, an item clone, index
 * entries), so with V8's default young generation it spends a tenth of its time scavenging; a
 * larger one measured 2-10% less CPU per ping in the store (and in the app, which `npm start` and
 * `npm run bench` run with the same flag). V8 grows it only under such a load.
 */
export const STORE_NODE_FLAGS = ['--max-semi-space-size=64'];

/**
 * The same store in a child process, so it gets a core of its own instead of sharing the event
 * loop with the HTTP server (the benchmark uses it). The child exits when the parent goes away.
 */
async function startInChild(dataDir: string, port: number, nodeFlags: readonly string[]): Promise<EmbeddedStore> {
  if (dataDir !== ':memory:') mkdirSync(dataDir, { recursive: true });
  const child = spawn(process.execPath, [...STORE_NODE_FLAGS, ...nodeFlags, '-e', CHILD_SCRIPT], {
    env: {
      ...process.env,
      VIGIL_DYNALITE: createRequire(import.meta.url).resolve('dynalite'),
      VIGIL_STORE_DIR: dataDir,
      VIGIL_STORE_PORT: String(port),
      VIGIL_STORE_LEVEL: JSON.stringify(STORE_LEVEL_OPTIONS),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const [first] = (await Promise.race([once(lines, 'line'), once(child, 'exit').then(() => [undefined])])) as [string | undefined];
  lines.close();
  if (first === undefined) throw new Error('embedded store child exited before listening');
  const { port: listening } = JSON.parse(first) as { port: number };
  return {
    endpoint: `http://127.0.0.1:${listening}`,
    ...(child.pid !== undefined ? { pid: child.pid } : {}),
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin.end();
      await exited;
    },
  };
}
