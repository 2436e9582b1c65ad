import { api } from '../api/client';
import { sessionStore } from '../api/session';

/**
 * THE ONE PLACE TO SWITCH the stream's authentication. Browsers cannot set headers on a
 * WebSocket, and the server's signal stream (core/streams/schema.ts) takes the access token in
 * the query today. Issue 31 asks for no token in a URL: when the API offers a single-use stream
 * ticket, fetch it here and put `ticket=` in place of `access_token=`; nothing else changes.
 * Meanwhile the token is the short-lived in-memory access token, sent only over this
 * same-origin connection (never in a link, history entry or Referer).
 */
export async function streamUrl(retrying: boolean): Promise<string | null> {
  // On a reconnect, a cheap authenticated read first: the client's middleware refreshes an
  // expired access token by cookie, so a reconnect after the token's lifetime does not present a
  // dead one. The first connect uses the token the page just got.
  if (retrying && !(await api.GET('/me')).response.ok) return null;
  const token = sessionStore.token();
  if (token === null) return null;
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  const query = new URLSearchParams({ stream: 'signals', access_token: token });
  return `${scheme}://${window.location.host}/api/ws?${query.toString()}`;
}
