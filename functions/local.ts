import { serve } from '@hono/node-server';
import { createApp } from '../core/app.js';
import { ConfigError, loadConfig } from '../core/config.js';
import { startEmbeddedStore, type EmbeddedStore } from '../core/adapters/local/embeddedStore.js';
import { createLocalDeps } from '../core/runtime.js';
import { startLocalWorkers } from '../core/workers/local.js';

/** `npm start`: the whole service on one machine, no AWS account and no network. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  let store: EmbeddedStore | undefined;
  const endpoint = config.dynamoEndpoint ?? (store = await startEmbeddedStore(config.dataDir)).endpoint;
  const deps = await createLocalDeps({ config, endpoint, autoDrain: true, logMail: true });
  const stopWorkers = startLocalWorkers(deps);
  const app = createApp(deps);
  const server = serve({ fetch: app.fetch, port: config.port, hostname: '0.0.0.0' }, () => {
    console.log(`Vigil is listening: base URL http://localhost:${config.port}/api`);
    console.log(`  store: ${config.dynamoEndpoint ?? `embedded (${config.dataDir})`}`);
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests and queued work`);
    server.close(async () => {
      await stopWorkers();
      await deps.queue.drain();
      await store?.close();
      process.exit(0);
    });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

void main();
