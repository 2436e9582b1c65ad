import type { HttpHandler } from '@smithy/protocol-http';
import type { Reshape } from './resolvedOnce.js';

/**
 * Embedded stores running in this process, by the endpoint they also listen on. A client made for
 * such an endpoint hands its requests to the store directly (core/adapters/local/inProcessTransport.ts)
 * instead of through a loopback socket; anything else (another process, DynamoDB Local, AWS) goes
 * over HTTP as before. Keyed by endpoint so that every caller keeps naming a store by its URL.
 */
type LocalTransport = HttpHandler & {
  /** Wraps a client's protocol so that it hands this store data-plane requests as objects. */
  directProtocol?: <P extends object>(protocol: P) => P;
  /** Reshapes the middleware stack an operation is resolved with for such requests (core/store/resolvedOnce.ts). */
  directStack?: Reshape;
};

const transports = new Map<string, LocalTransport>();

export function registerLocalTransport(endpoint: string, handler: LocalTransport): () => void {
  transports.set(endpoint, handler);
  return () => {
    if (transports.get(endpoint) === handler) transports.delete(endpoint);
  };
}

export const localTransport = (endpoint: string): LocalTransport | undefined => transports.get(endpoint);
