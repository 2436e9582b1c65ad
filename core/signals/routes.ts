import { createRoute, z } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import { sessionAuth } from '../auth/middleware.js';
import { ErrorBody } from '../http/errors.js';
import { jsonResponse, sessionSecurity } from '../http/openapi.js';
import { pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { listSignals } from './history.js';
import { PingHints } from './hints.js';
import { answerPing, exitCodePing, PING_METHODS, PING_VARIANTS, pingOptions } from './ping.js';
import { ExitCodeParam, PingAck, RunQuery, Signal, SignalHistoryQuery, StreamQuery, TokenParam } from './schema.js';
import { slugPingRoutes } from './slugRoutes.js';
import { signalStream } from './stream.js';

const errors = {
  404: jsonResponse(ErrorBody, 'Unknown check (code CHECK_NOT_FOUND)'),
  409: jsonResponse(ErrorBody, 'A /start with a new rid while the job already has 100 open runs (code CONFLICT); nothing stored'),
  413: { description: 'Payload over 10,240 bytes; nothing stored' },
  429: { description: 'Rate limited (per check token, or per address for unknown tokens)' },
};

/**
 * The signal surface (`{signal_base_url}/signals`): public pings by token, slug pings by API key,
 * and the session-token history and stream. Session auth is attached per route so that pings
 * never pass through it.
 */
export function signalRoutes() {
  const r = createRouter();
  const hints = new PingHints();

  for (const variant of PING_VARIANTS) {
    for (const method of PING_METHODS) {
      r.openapi(
        createRoute({
          method,
          path: `/ping/{token}${variant.suffix}`,
          tags: ['signals'],
          summary: `Heartbeat ${variant.kind} ping (HEAD works like GET; a POST body up to 10 KB is stored)`,
          request: { params: TokenParam, query: RunQuery },
          responses: { 200: jsonResponse(PingAck, 'Recorded'), 400: jsonResponse(ErrorBody, 'rid not a UUID'), ...errors },
        }),
        async (c) => {
          await answerPing(c.var.deps, c, hints, c.req.valid('param').token, variant.kind);
          return c.json({ message: 'OK' as const }, 200);
        },
      );
    }
  }

  // After the named variants: any other last segment is an exit code (or no route).
  for (const method of PING_METHODS) {
    r.openapi(
      createRoute({
        method,
        path: '/ping/{token}/{exitCode}',
        tags: ['signals'],
        summary: 'Heartbeat ping with the exit code of the run (0 is success, 1-255 fail; stored with the signal)',
        request: { params: ExitCodeParam, query: RunQuery },
        responses: { 200: jsonResponse(PingAck, 'Recorded'), 400: jsonResponse(ErrorBody, 'Exit code over 255, or rid not a UUID'), ...errors },
      }),
      async (c) => {
        const { token, exitCode } = c.req.valid('param');
        const ping = exitCodePing(exitCode);
        // Before the rid check: an unknown suffix is no route whatever the query says.
        await answerPing(c.var.deps, c, hints, token, ping.kind, undefined, pingOptions(c, ping.exitCode));
        return c.json({ message: 'OK' as const }, 200);
      },
    );
  }

  r.route('/', slugPingRoutes(hints));

  r.use('/token/*', sessionAuth());
  r.openapi(
    createRoute({
      method: 'get',
      path: '/token/{token}',
      tags: ['signals'],
      security: sessionSecurity,
      request: { params: TokenParam, query: SignalHistoryQuery },
      responses: { 200: jsonResponse(pageSchema(Signal, 'SignalPage'), 'Signals, newest first'), 404: errors[404] },
    }),
    async (c) => c.json(await listSignals(requestCtx(c), c.req.valid('param').token, c.req.valid('query')), 200),
  );

  r.use('/sse', sessionAuth());
  r.openapi(
    createRoute({
      method: 'get',
      path: '/sse',
      tags: ['signals'],
      security: sessionSecurity,
      request: { query: StreamQuery },
      responses: {
        200: {
          description:
            'Server-sent events: `event: signal|check|incident`, `data: {type, data}`; `incident` data is `{incidentId, workspaceId, checkId, state, severity, change: opened|updated|timeline}` (refetch the incident); a keep-alive comment every 15 s',
          content: { 'text/event-stream': { schema: z.string() } },
        },
        404: errors[404],
        429: { description: 'More than 30 new connections in 60 s, or already 10 open streams of the user or 20 of the address (with Retry-After)' },
      },
    }),
    (c) => signalStream(c, c.req.valid('query').token),
  );
  return r;
}
