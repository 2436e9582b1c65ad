import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ulid } from 'ulid';
import type { TestContext } from '../harness.js';
import type { IncidentAlertMessage } from '../../core/incidents/events.js';

/** Shared steps of the alert dispatch tests (not a test file itself). */
import type { User } from './users.js';

export type { User };

export type ReceivedRequest = { method: string; url: string; headers: IncomingHttpHeaders; body: string };
export type PlannedAnswer = { status: number; headers?: Record<string, string>; body?: string };

/**
 * A webhook receiver on 127.0.0.1 (reachable only with VIGIL_PROBE_ALLOW_PRIVATE). Each path
 * answers its planned statuses in order, then 200; every request is kept. Without a planned
 * answer it echoes a `subscription.verification` challenge, as a subscriber endpoint that wants
 * the deliveries does; `at` leaves those verification requests out (`verifications` has them).
 */
export async function startReceiver() {
  const requests: ReceivedRequest[] = [];
  const plans = new Map<string, PlannedAnswer[]>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const answer = plans.get(req.url ?? '')?.shift() ?? { status: 200, body: challengeOf(body) ?? 'ok' };
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    requests,
    /** Answers for the next requests to `path`, in order. */
    answer: (path: string, ...answers: PlannedAnswer[]) => void plans.set(path, [...(plans.get(path) ?? []), ...answers]),
    /** Requests that reached one path, verification requests left out. */
    at: (path: string) => requests.filter((r) => r.url === path && challengeOf(r.body) === undefined),
    /** `subscription.verification` requests that reached one path. */
    verifications: (path: string) => requests.filter((r) => r.url === path && challengeOf(r.body) !== undefined),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

function challengeOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { type?: unknown; data?: { challenge?: unknown } };
    return parsed.type === 'subscription.verification' && typeof parsed.data?.challenge === 'string' ? parsed.data.challenge : undefined;
  } catch {
    return undefined;
  }
}

export async function createChannel(
  t: TestContext,
  user: User,
  body: { type: 'EMAIL'; config: { email: string } } | { type: 'WEBHOOK'; config: { url: string } },
): Promise<{ id: number; secret?: string }> {
  const res = await t.request<{ id: number; secret?: string }>('POST', '/alert-channels', {
    token: user.token,
    body: { workspaceId: user.workspaceId, name: `${body.type.toLowerCase()} channel`, ...body },
  });
  if (res.status !== 201) throw new Error(`create channel failed: ${res.status} ${res.text}`);
  if (body.type === 'EMAIL') await confirmAddress(t, body.config.email);
  return res.body;
}

/** Follows the confirmation link mailed to `email` and takes that mail out of the outbox (tests count alert mail). */
export async function confirmAddress(t: TestContext, email: string): Promise<void> {
  const outbox = t.deps.mailer.outbox;
  const index = outbox.findLastIndex((mail) => mail.to === email && mail.subject.startsWith('Confirm Vigil alerts'));
  const link = /\/api(\/alert-channels\/confirm\/\S+)/.exec(outbox[index]?.text ?? '')?.[1];
  if (!link) throw new Error(`no confirmation mailed to ${email}`);
  // The link's GET only renders a page; its button POSTs.
  const res = await t.request('POST', link);
  if (res.status !== 200) throw new Error(`confirmation failed: ${res.status} ${res.text}`);
  outbox.splice(index, 1);
}

/** A fresh address per test, so one test's mail never counts in another's. */
export async function emailChannel(t: TestContext, user: User): Promise<{ id: number; email: string }> {
  const email = `ops-${ulid().toLowerCase()}@example.com`;
  const channel = await createChannel(t, user, { type: 'EMAIL', config: { email } });
  return { id: channel.id, email };
}

export const mailTo = (t: TestContext, email: string) => t.deps.mailer.outbox.filter((mail) => mail.to === email);

/** The mailer's next send fails (a mail service outage, say); the ones after it send as before. */
export function failNextMail(t: TestContext): void {
  const mailer = t.deps.mailer;
  const send = mailer.send.bind(mailer);
  mailer.send = async () => {
    mailer.send = send;
    throw new Error('mail service unavailable');
  };
}

/** Declares an incident through the Integration API and delivers everything that follows from it. */
export async function declare(t: TestContext, key: string, body: Record<string, unknown> = {}): Promise<{ id: number }> {
  const res = await t.request<{ id: number }>('POST', '/v1/incidents', { token: key, body: { title: 'Checkout is failing', severity: 'P2', ...body } });
  if (res.status !== 201) throw new Error(`declare failed: ${res.status} ${res.text}`);
  await t.deps.queue.drain();
  return res.body;
}

export async function timeline(t: TestContext, user: User, incidentId: number) {
  const res = await t.request<{ type: string; message: string; occurredAt: string }[]>('GET', `/incident-events/${incidentId}`, { token: user.token });
  if (res.status !== 200) throw new Error(`timeline failed: ${res.status} ${res.text}`);
  return res.body;
}

export const alertsSent = async (t: TestContext, user: User, incidentId: number) => (await timeline(t, user, incidentId)).filter((event) => event.type === 'ALERT_SENT');

/** The message the incident worker would publish for an incident opening now. */
export const openedMessage = (t: TestContext, user: User, incidentId: number, extra: Partial<IncidentAlertMessage> = {}): IncidentAlertMessage => ({
  type: 'incident.opened',
  incidentId,
  workspaceId: user.workspaceId,
  projectId: null,
  checkId: null,
  severity: 'P2',
  at: t.clock.now().toISOString(),
  ...extra,
});
