import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { HttpResponse, type HttpHandler, type HttpRequest } from '@smithy/protocol-http';
import { answerDirect, DirectRequest, directProtocol, directStack, type Dispatch } from './directDispatch.js';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The AWS SDK's transport for an embedded store in this same process: each request goes straight
 * to dynalite's request listener as an object, with no socket, no HTTP parsing on either side and
 * no second process. On this project's machines a loopback round trip cost about as much CPU as
 * the store's own work (the `writev` of the request alone was a fifth of the app's CPU per ping),
 * and a status change takes dozens of store requests.
 *
 * dynalite's listener reads only the method, URL, headers and body events of the request, and
 * sets a status, headers and one body on the response; those are what the two small objects
 * below provide. The SDK reads a Uint8Array body as it reads a stream's.
 *
 * With `directProtocol` on the client (core/store/plainClient.ts does it), data-plane requests
 * skip even that: they arrive as DirectRequests and go to dynalite's dispatch (directDispatch.ts),
 * through a stack without the HTTP-only middleware (`directStack`).
 */
export function inProcessTransport(
  server: Server & { dispatch?: Dispatch },
): HttpHandler & { close(): void; directProtocol?: <P extends object>(protocol: P) => P; directStack?: typeof directStack } {
  const listener = server.listeners('request')[0] as RequestListener | undefined;
  if (!listener) throw new Error('the embedded store has no request listener');
  const dispatch = server.dispatch;
  let closed = false;
  return {
    // A late request (a poller's, at shutdown) fails as a refused connection would, before it reaches a closed database.
    close: () => {
      closed = true;
    },
    ...(dispatch ? { directProtocol, directStack } : {}),
    handle: (request: HttpRequest | DirectRequest) =>
      new Promise<{ response: HttpResponse }>((resolve, reject) => {
        if (closed) {
          reject(Object.assign(new Error('the embedded store is closed'), { code: 'ECONNREFUSED' }));
          return;
        }
        if (request instanceof DirectRequest && dispatch) {
          // The SDK's deserializer is the protocol's, which knows a DirectResponse: the handler's type is HTTP's.
          resolve(answerDirect(dispatch, request) as Promise<{ response: HttpResponse }>);
          return;
        }
        if (request instanceof DirectRequest) throw new Error('the embedded store has no dispatch for a direct request');
        const req = Object.assign(new EventEmitter(), {
          method: request.method,
          url: request.path || '/',
          headers: lowerCased(request.headers),
        });
        const headers: Record<string, string> = {};
        const res = {
          statusCode: 200,
          contentType: 'application/json',
          setHeader(name: string, value: string | number) {
            headers[name.toLowerCase()] = String(value);
          },
          end(body?: string) {
            const bytes = Buffer.from(body ?? '', 'utf8');
            resolve({ response: new HttpResponse({ statusCode: res.statusCode, headers, body: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) }) });
          },
        };
        try {
          listener(req as unknown as IncomingMessage, res as unknown as ServerResponse);
          // The SDK's JSON body is a Uint8Array (with string methods that warn when called).
          const body = request.body as string | Uint8Array | undefined;
          const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body instanceof Uint8Array ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : undefined;
          if (bytes && bytes.byteLength > 0) req.emit('data', bytes);
          req.emit('end');
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      }),
    updateHttpClientConfig: () => {},
    httpHandlerConfigs: () => ({}),
  };
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}
