import { z } from 'zod';
import { STATUS_PAGE_SLUG } from '../statuspages/schema.js';

/**
 * The WebSocket connect query, the same on AWS (`$connect`) and locally (`/api/ws`): browsers
 * cannot set headers on a WebSocket, so the credential travels in the query.
 * - `stream=signals&ticket=<STREAM_TICKET>[&token=<CHECK_TOKEN>]`: the signal stream, with a
 *   single-use ticket from `POST /streams/ticket` (or, for scripts, `access_token=<ACCESS_TOKEN>`);
 * - `stream=status&slug=<slug>[&session=<PAGE_SESSION>]`: a status page's public stream.
 */
export const SignalConnectQuery = z.object({
  stream: z.literal('signals'),
  access_token: z.string().max(4096).optional(),
  ticket: z.string().min(1).max(128).optional(),
  token: z.string().min(1).max(128).optional(),
});

export const StatusConnectQuery = z.object({
  stream: z.literal('status'),
  slug: z.string().regex(STATUS_PAGE_SLUG),
  session: z.string().min(1).max(1024).optional(),
});

export const ConnectQuery = z.discriminatedUnion('stream', [SignalConnectQuery, StatusConnectQuery]);
export type ConnectQuery = z.infer<typeof ConnectQuery>;
export type StatusConnectQuery = z.infer<typeof StatusConnectQuery>;

/** What a client may send: `{"action":"ping"}` keeps an idle connection (API Gateway drops it after 10 minutes). */
export const ClientMessage = z.object({ action: z.literal('ping') });

export const PONG = JSON.stringify({ event: 'pong' });
