import type { Context } from 'hono';

type NodeBindings = { incoming?: { socket?: { remoteAddress?: string } } };
type LambdaBindings = { event?: { requestContext?: { http?: { sourceIp?: string } } } };

/**
 * The caller's address as the platform saw it: API Gateway's sourceIp on AWS, the socket locally.
 * Forwarded headers are not trusted: anyone can write them.
 */
export function clientIp(c: Context): string {
  const env = c.env as (NodeBindings & LambdaBindings) | undefined;
  return env?.event?.requestContext?.http?.sourceIp ?? env?.incoming?.socket?.remoteAddress ?? 'unknown';
}
