import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';

type DynaliteFactory = (options: { path?: string; createTableMs?: number; deleteTableMs?: number; updateTableMs?: number }) => Server;

export type EmbeddedStore = { endpoint: string; close(): Promise<void> };

/**
 * Starts dynalite (a DynamoDB-compatible server in pure Node) on a loopback port. `dataDir`
 * `:memory:` keeps nothing; any other path keeps the data on disk across restarts.
 */
export async function startEmbeddedStore(dataDir: string, port = 0): Promise<EmbeddedStore> {
  const require = createRequire(import.meta.url);
  const dynalite = require('dynalite') as DynaliteFactory;
  const inMemory = dataDir === ':memory:';
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const server = dynalite({ ...(inMemory ? {} : { path: dataDir }), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
