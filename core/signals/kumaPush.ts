import type { Context } from 'hono';
import { HttpError } from '../http/httpError.js';
import type { PingHints } from './hints.js';
import { answerPing } from './ping.js';
import type { PingDeps } from './pingStore.js';

/**
 * Uptime Kuma's push path, `{signal_base_url}/push/<token>`: a push monitor imported from Kuma
 * keeps its token as its ping token, so its clients change only the host. Kuma's own answers:
 * `?status=up` (the default; any other value is down, as in Kuma) records a success or a fail,
 * `msg` is stored as the signal's body, and the reply is `{ok: true}`, or 404
 * `{ok: false, msg: "Monitor not found or not active."}` for a token no check holds.
 */
export const KUMA_PUSH_PATH = '/api/push/:token';

export async function answerKumaPush(deps: PingDeps, c: Context, hints: PingHints): Promise<Response> {
  const status = c.req.query('status') ?? 'up';
  const msg = c.req.query('msg') ?? 'OK';
  const ping = c.req.query('ping');
  // Kuma stores the round-trip time a client measured beside the message; Vigil keeps both in the body.
  const body = ping ? `${msg}\nping: ${ping}` : msg;
  try {
    await answerPing(deps, c, hints, c.req.param('token') ?? '', status === 'up' ? 'success' : 'fail', body, {});
  } catch (err) {
    if (err instanceof HttpError && err.code === 'CHECK_NOT_FOUND') return c.json({ ok: false, msg: 'Monitor not found or not active.' }, 404);
    throw err;
  }
  return c.json({ ok: true }, 200);
}
