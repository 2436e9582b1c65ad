import type { HttpHandler } from '@smithy/protocol-http';

/**
 * Embedded stores running in this process, by the endpoint they also listen on. A client made for
 * such an endpoint hands its requests to the store directly (core/adapters/local/inProcessTransport.ts)
 * instead of through a loopback socket; anything else (another process, DynamoDB Local, AWS) goes
 * over HTTP as before. Keyed by endpoint so that every caller keeps naming a store by its URL.
 */
const transports = new Map<string, HttpHandler>();

export function registerLocalTransport(endpoint: string, handler: HttpHandler): () => void {
  transports.set(endpoint, handler);
  return () => {
    if (transports.get(endpoint) === handler) transports.delete(endpoint);
  };
}

export const localTransport = (endpoint: string): HttpHandler | undefined => transports.get(endpoint);
