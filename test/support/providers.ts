import { z } from 'zod';
import { createNodeConnect, type GuardedRequestDeps } from '../../core/outbound/index.js';
import { fakeResolver, startLoopbackTlsServer, toLoopback, type RecordedRequest } from './outbound.js';
import { TEST_CERT_PEM, TEST_KEY_PEM } from './tlsFixture.js';

/**
 * Stand-ins for Pushover's and PagerDuty's APIs on a loopback TLS server, reached through the
 * outbound seams (`outbound`): the channel's `apiBaseUrl` is `https://vigil-tls.test/pushover` or
 * `.../pagerduty` (the name the test certificate holds; the path prefix tells the two apart, and
 * shows a base URL may carry one), a fake resolver answers a public address and the socket goes to 127.0.0.1.
 * Each checks a request against the provider's documented shape and answers as the provider does:
 * a request off the shape gets the provider's 400, and `problems` says what was wrong, so a test
 * can assert there were none.
 */

const Key30 = z.string().regex(/^[A-Za-z0-9]{30}$/);
// https://pushover.net/api: message <= 1024, title <= 250, url <= 512, url_title <= 100, priority -2..2;
// emergency needs retry >= 30 and expire <= 10800; html and monospace exclude each other.
const PushoverMessage = z
  .object({
    token: Key30,
    user: Key30,
    message: z.string().min(1).max(1024),
    title: z.string().max(250).optional(),
    url: z.url().max(512).optional(),
    url_title: z.string().max(100).optional(),
    priority: z.enum(['-2', '-1', '0', '1', '2']).optional(),
    retry: z.string().regex(/^\d+$/).optional(),
    expire: z.string().regex(/^\d+$/).optional(),
    html: z.literal('1').optional(),
    monospace: z.literal('1').optional(),
    tags: z.string().max(1024).optional(),
  })
  .strict()
  .refine((m) => m.priority !== '2' || (Number(m.retry) >= 30 && Number(m.expire) > 0 && Number(m.expire) <= 10800), 'emergency priority needs retry >= 30 and expire <= 10800')
  .refine((m) => !(m.html && m.monospace), 'html and monospace are exclusive');
const PushoverCancel = z.object({ token: Key30 }).strict();

// https://developer.pagerduty.com/docs/events-api-v2/trigger-events/ (and acknowledge, resolve).
const PagerDutyEvent = z.discriminatedUnion('event_action', [
  z
    .object({
      routing_key: z.string().length(32),
      event_action: z.literal('trigger'),
      dedup_key: z.string().min(1).max(255).optional(),
      client: z.string().optional(),
      client_url: z.url().optional(),
      payload: z
        .object({
          summary: z.string().min(1).max(1024),
          source: z.string().min(1),
          severity: z.enum(['critical', 'error', 'warning', 'info']),
          timestamp: z.iso.datetime().optional(),
          component: z.string().optional(),
          group: z.string().optional(),
          class: z.string().optional(),
          custom_details: z.record(z.string(), z.unknown()).optional(),
        })
        .strict(),
      links: z.array(z.object({ href: z.url(), text: z.string().optional() }).strict()).optional(),
      images: z.array(z.unknown()).optional(),
    })
    .strict(),
  z.object({ routing_key: z.string().length(32), event_action: z.literal('acknowledge'), dedup_key: z.string().min(1).max(255) }).strict(),
  z.object({ routing_key: z.string().length(32), event_action: z.literal('resolve'), dedup_key: z.string().min(1).max(255) }).strict(),
]);

export type PlannedAnswer = { status: number; headers?: Record<string, string> };

export async function startProviders() {
  const problems: string[] = [];
  const plans: PlannedAnswer[] = [];
  const server = await startLoopbackTlsServer(TEST_CERT_PEM, TEST_KEY_PEM, (request, response, body) => {
    const [, host = '', path = ''] = /^\/(pushover|pagerduty)(\/.*)?$/.exec(request.url ?? '') ?? [];
    const planned = plans.shift();
    const answer = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(json));
    };
    const refuse = (what: string) => {
      problems.push(`${host}${path}: ${what}`);
      return host === 'pagerduty' ? answer(400, { status: 'invalid event', errors: [what] }) : answer(400, { status: 0, errors: [what] });
    };
    if (request.method !== 'POST') return refuse(`method ${request.method}`);
    if (planned) return answer(planned.status, { status: 0, errors: ['planned'] }, planned.headers);
    if (host === 'pushover') {
      if (request.headers['content-type'] !== 'application/x-www-form-urlencoded') return refuse(`content-type ${request.headers['content-type']}`);
      const form = Object.fromEntries(new URLSearchParams(body));
      const cancel = /^\/1\/receipts\/cancel_by_tag\/[A-Za-z0-9_-]+\.json$/.test(path);
      if (!cancel && path !== '/1/messages.json') return refuse('unknown path');
      const parsed = (cancel ? PushoverCancel : PushoverMessage).safeParse(form);
      if (!parsed.success) return refuse(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      return answer(200, cancel ? { status: 1, canceled: 0, request: 'r' } : { status: 1, request: 'r' });
    }
    if (host === 'pagerduty') {
      if (path !== '/v2/enqueue') return refuse('unknown path');
      if (request.headers['content-type'] !== 'application/json') return refuse(`content-type ${request.headers['content-type']}`);
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        return refuse('not JSON');
      }
      const parsed = PagerDutyEvent.safeParse(json);
      if (!parsed.success) return refuse(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      return answer(202, { status: 'success', message: 'Event processed', dedup_key: parsed.data.dedup_key ?? 'generated' });
    }
    return refuse('unknown host');
  });
  const outbound: GuardedRequestDeps = {
    resolve: fakeResolver({ 'vigil-tls.test': ['93.184.216.34'] }).resolve,
    connect: toLoopback(server.port, createNodeConnect({ ca: TEST_CERT_PEM })),
  };
  const to = (prefix: string) => server.requests.filter((r) => r.url.startsWith(`/${prefix}/`));
  return {
    outbound,
    problems,
    /** The next requests, whatever they are, get these answers (then the providers' own again). */
    answer: (...answers: PlannedAnswer[]) => void plans.push(...answers),
    pushover: () => to('pushover'),
    pagerDuty: () => to('pagerduty'),
    close: () => server.close(),
  };
}
export type Providers = Awaited<ReturnType<typeof startProviders>>;

export const pushoverForm = (request: RecordedRequest): Record<string, string> => Object.fromEntries(new URLSearchParams(request.body));
export const pagerDutyEvent = (request: RecordedRequest) =>
  JSON.parse(request.body) as { event_action: string; dedup_key: string; routing_key: string; payload?: Record<string, unknown>; links?: unknown[] };

export const PUSHOVER_CONFIG = { userKey: 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG', appToken: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi', apiBaseUrl: 'https://vigil-tls.test/pushover' };
export const PAGERDUTY_CONFIG = { routingKey: 'R0123456789abcdefABCDEF012345678', apiBaseUrl: 'https://vigil-tls.test/pagerduty' };
