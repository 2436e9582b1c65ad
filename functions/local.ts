import { ConfigError, loadConfig, type Config } from '../core/config.js';
import { startLocalServer } from '../core/localServer.js';

/** `npm start`: the whole service on one machine, no AWS account and no network. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const server = await startLocalServer(config);
  console.log(`Vigil is listening: base URL ${server.baseUrl}`);
  console.log(`  streams: ${server.streamUrl}?stream=signals&access_token=<ACCESS_TOKEN>[&token=<CHECK_TOKEN>]`);
  console.log(`           ${server.streamUrl}?stream=status&slug=<SLUG>[&session=<PAGE_SESSION>]  (or SSE: ${server.baseUrl}/public/status/<SLUG>/events)`);
  console.log(`  store: ${config.dynamoEndpoint ?? `embedded (${config.dataDir})`}`);

  const shutdown = (signal: string) => {
    console.log(`${signal}: finishing in-flight requests and queued work`);
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('shutdown failed', err);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

void main();
