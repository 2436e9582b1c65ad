import { api } from '../api/client';

/**
 * The stream's base: same origin locally (`/api/ws` on `npm start`, proxied by `npm run
 * dev:web`); on AWS the WebSocket API is its own origin, given to the build as VITE_STREAM_URL.
 */
function streamBase(): string {
  const configured = import.meta.env.VITE_STREAM_URL;
  if (configured) return configured;
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${window.location.host}/api/ws`;
}

/**
 * A URL for one connect to the signal stream. Browsers cannot set headers on a WebSocket, and no
 * token goes in a URL: the access token buys a single-use 30-second ticket
 * (`POST /streams/ticket`), which goes in the URL instead and is useless once used. A fresh one
 * per (re)connect. The client's middleware refreshes an expired access token by cookie first, so
 * a reconnect after the token's lifetime still gets one. null: signed out, or no ticket now.
 */
export async function streamUrl(): Promise<string | null> {
  const { data, response } = await api.POST('/streams/ticket');
  if (!response.ok || data === undefined) return null;
  const query = new URLSearchParams({ stream: 'signals', ticket: data.ticket });
  return `${streamBase()}?${query.toString()}`;
}
