import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { loadConfig } from '../config.js';
import { startLocalServer } from '../localServer.js';

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-streams-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The upgrade's answer: 101 when the socket opened, else the refusal's status. */
function connect(url: string): Promise<{ status: number; ws: WebSocket }> {
  const ws = new WebSocket(url);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ status: 101, ws }));
    ws.once('unexpected-response', (_request, response) => resolve({ status: response.statusCode ?? 0, ws }));
    ws.once('error', reject);
  });
}

it('npm start serves the WebSocket streams at ws://localhost:<port>/api/ws and stops with clients connected', async () => {
  const server = await startLocalServer(loadConfig({ PORT: '0', VIGIL_DATA_DIR: dataDir, VIGIL_SWEEP_SECONDS: '3600' }), { log: false });
  try {
    expect(server.streamUrl).toMatch(/^ws:\/\/localhost:\d+\/api\/ws$/);
    expect((await connect(`${server.streamUrl}?stream=signals&access_token=nope`)).status).toBe(401);
    const signup = await fetch(`${server.baseUrl}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'streams@example.com', password: 'correct horse battery' }),
    });
    const { access_token: token } = (await signup.json()) as { access_token: string };
    const open = await connect(`${server.streamUrl}?stream=signals&access_token=${token}`);
    expect(open.status).toBe(101);
    const closed = new Promise<void>((resolve) => open.ws.once('close', () => resolve()));
    await server.stop();
    await closed;
  } finally {
    await server.stop();
  }
});
