import { Hono, type Context } from 'hono';
import type { ApiKeyActor } from '../context.js';
import { isRunId } from '../checks/runs.js';
import { findCheckBySlug } from '../checks/repository.js';
import type { PingKind } from '../checks/status.js';
import { createHeartbeatJob } from '../checks/v1.js';
import { clientIp } from '../http/clientIp.js';
import type { AppEnv } from '../http/env.js';
import { HttpError } from '../http/errors.js';
import { consumeRateLimit, enforce } from '../http/rateLimit.js';
import { projectByPingKey } from '../identity/pingKeys.js';
import type { ProjectItem } from '../store/entities/project.js';
import type { CheckItem } from '../store/entities/check.js';
import { hintOf, PingHints } from './hints.js';
import { answerPing, UNKNOWN_TOKEN_LIMIT } from './ping.js';

/*
 * Healthchecks' Pinging API on Vigil's signal host (`{signal_base_url}/ping/...`), so that its
 * clients (runitor, the curl, shell and PowerShell lines of its docs) work by changing the base
 * URL only. Every answer below is the one Healthchecks documents and serves; sources:
 * https://healthchecks.io/docs/http_api/ (the endpoints, their response codes and the
 * `Ping-Body-Limit` header) and its handler, hc/api/views.py `ping` and `ping_by_slug`
 * (the plain-text bodies "OK", "Created", "not found", "ambiguous slug", "invalid url format",
 * "invalid uuid format"), hc/api/urls.py (which path shape is which). A ping is then recorded by
 * the same answerPing/ingestPing as Vigil's own ping paths: the same signal, run ids, exit codes,
 * dedup and per-check rate limit.
 */

/**
 * How much of a POST body is stored: "limited to the first 100 kB for each received ping"
 * (healthchecks.io/docs/http_api, General Notes); the rest is read and dropped, not refused,
 * as Healthchecks does (`request.body[:PING_BODY_LIMIT]`). Sent back in `Ping-Body-Limit`, which
 * runitor reads to send only that much of the command's output tail.
 */
export const HC_PING_BODY_LIMIT = 100_000;

/** Django's `uuid` path converter (hc/api/urls.py `ping/<uuid:code>`): lowercase, canonical. */
const UUID_SEGMENT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Django's `slug` converter, for both the ping key and the slug. */
const SLUG_SEGMENT = /^[-a-zA-Z0-9_]+$/;
const NAMED: Record<string, PingKind> = { start: 'start', fail: 'fail', log: 'log' };

type Suffix = { kind: PingKind; exitCode?: number | undefined };

/** Healthchecks answers in plain text; a recorded ping also carries these two headers (its refusals do not). */
function plain(c: Context<AppEnv>, status: 200 | 201 | 400 | 404 | 409 | 429, text: string, headers: Record<string, string> = {}): Response {
  const recorded: Record<string, string> = status === 200 || status === 201 ? { 'Ping-Body-Limit': String(HC_PING_BODY_LIMIT), 'Access-Control-Allow-Origin': '*' } : {};
  return c.text(text, status, { ...recorded, ...headers });
}

/** A refusal in Healthchecks' words, raised anywhere below and answered by `answer`. */
class HcRefusal extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 429,
    text: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(text);
  }
}
const notFoundText = () => new HcRefusal(404, 'not found');
const badUrl = () => new HcRefusal(400, 'invalid url format');

/** `start`, `fail`, `log` or an exit status (`<int:exitstatus>`: 0 success, 1-255 fail, more is 400). */
function suffixOf(segment: string | undefined): Suffix | undefined {
  if (segment === undefined) return { kind: 'success' };
  const named = NAMED[segment];
  if (named) return { kind: named };
  if (!/^[0-9]+$/.test(segment)) return undefined;
  const exitCode = segment.length > 3 ? 256 : Number(segment);
  if (exitCode > 255) throw badUrl();
  return { kind: exitCode === 0 ? 'success' : 'fail', exitCode };
}

/**
 * Reads a POST body and keeps its first HC_PING_BODY_LIMIT bytes. The app's 1 MB request cap
 * (core/appShell.ts) still bounds what is read at all.
 */
async function truncatedBody(c: Context<AppEnv>): Promise<string> {
  if (c.req.method !== 'POST') return '';
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  return new TextDecoder().decode(bytes.subarray(0, HC_PING_BODY_LIMIT));
}

export function hcPingRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  const hints = new PingHints();
  const handle = (c: Context<AppEnv>) => {
    const { a, b, c: third } = c.req.param() as { a: string; b?: string; c?: string };
    return answer(c, hints, a, b, third);
  };
  // GET also answers HEAD (Hono runs the GET handler and drops the body). A trailing slash is
  // the bare success ping, as Django's `ping/<uuid:code>/` + `path("", views.ping)` makes it.
  for (const path of ['/:a', '/:a/', '/:a/:b', '/:a/:b/', '/:a/:b/:c']) r.on(['GET', 'POST'], path, handle);
  return r;
}

async function answer(c: Context<AppEnv>, hints: PingHints, first: string, second: string | undefined, third: string | undefined): Promise<Response> {
  try {
    // hc/api/urls.py tries `ping/<uuid>[/<suffix>]` first; anything else of two or three segments is `<ping-key>/<slug>[/<suffix>]`.
    const uuidSuffix = UUID_SEGMENT.test(first) && third === undefined ? suffixOf(second) : undefined;
    if (uuidSuffix) return await byUuid(c, hints, first, uuidSuffix);
    if (second === undefined) throw notFoundText();
    const suffix = suffixOf(third);
    if (!suffix || !SLUG_SEGMENT.test(first) || !SLUG_SEGMENT.test(second)) throw notFoundText();
    // ping_by_slug: "if slug != slug.lower(): return HttpResponseBadRequest('invalid url format')".
    if (second !== second.toLowerCase()) throw badUrl();
    return await bySlug(c, hints, first, second, suffix);
  } catch (err) {
    const refusal = err instanceof HcRefusal ? err : refusalOf(err);
    if (refusal) return plain(c, refusal.status, refusal.message, refusal.headers);
    throw err;
  }
}

/** Vigil's own refusals from the shared ping path, in Healthchecks' words where it has them. */
function refusalOf(err: unknown): HcRefusal | undefined {
  if (!(err instanceof HttpError)) return undefined;
  if (err.code === 'CHECK_NOT_FOUND' || err.code === 'NOT_FOUND') return notFoundText();
  if (err.code === 'RATE_LIMITED') return new HcRefusal(429, 'rate limited', err.headers);
  // Too many open runs, or a check that kept changing under the ping: nothing was stored.
  if (err.status === 409) return new HcRefusal(409, err.message, err.headers);
  if (err.status === 400) return new HcRefusal(400, err.message, err.headers);
  return undefined;
}

/** `?rid=` must be a UUID: "400 invalid uuid format" (ping view), before anything is stored. */
function runId(c: Context<AppEnv>): string | undefined {
  const rid = c.req.query('rid');
  if (rid !== undefined && !isRunId(rid)) throw new HcRefusal(400, 'invalid uuid format');
  return rid;
}

/** `/ping/<uuid>[/...]`: the UUID is the check's ping token, looked up as is (an imported check keeps its Healthchecks UUID). */
async function byUuid(c: Context<AppEnv>, hints: PingHints, token: string, suffix: Suffix): Promise<Response> {
  const rid = runId(c);
  await answerPing(c.var.deps, c, hints, token, suffix.kind, await truncatedBody(c), { rid, exitCode: suffix.exitCode });
  return plain(c, 200, 'OK');
}

/**
 * `/ping/<ping-key>/<slug>[/...]`: the project's ping key (core/identity/pingKeys.ts), then the
 * slug. A Vigil slug is unique per workspace, not per project, so the one way a slug cannot name
 * exactly one job of the key's project is a slug held by a check of another project (or by an
 * outbound check): that is refused with 409 "ambiguous slug" and changes nothing, as Healthchecks
 * refuses a slug that names several checks.
 */
async function bySlug(c: Context<AppEnv>, hints: PingHints, pingKey: string, slug: string, suffix: Suffix): Promise<Response> {
  const deps = c.var.deps;
  const rid = runId(c);
  const body = await truncatedBody(c);
  const project = await projectByPingKey(deps, pingKey);
  if (!project) {
    // Unknown keys cost lookups: limited per client address, as unknown tokens are.
    enforce(await consumeRateLimit(deps, UNKNOWN_TOKEN_LIMIT, `ip:${clientIp(c)}`));
    throw notFoundText();
  }
  let check = await findCheckBySlug(deps, project.workspaceId, slug);
  if (check && (check.projectId !== project.projectId || check.checkMode !== 'INBOUND')) throw new HcRefusal(409, 'ambiguous slug');
  let created = false;
  if (!check) {
    // Auto-provisioning is "off by default. To enable it, add a create=1 query parameter".
    if (c.req.query('create') !== '1') throw notFoundText();
    ({ check, created } = await provision(c, project, slug));
  }
  if (!hints.get(check.token)) hints.set(check.token, hintOf(check));
  await answerPing(deps, c, hints, check.token, suffix.kind, body, { rid, exitCode: suffix.exitCode });
  // ping_by_slug: a ping that created its check answers 201 with the body "Created".
  return created ? plain(c, 201, 'Created') : plain(c, 200, 'OK');
}

/**
 * Creates the job as Healthchecks does (`Check(project=project, name=slug, slug=slug)`), with
 * Vigil's job defaults. The key acts for its project's workspace as a read_write ping key would.
 */
async function provision(c: Context<AppEnv>, project: ProjectItem, slug: string): Promise<{ check: CheckItem; created: boolean }> {
  const deps = c.var.deps;
  const actor: ApiKeyActor = {
    kind: 'apiKey',
    apiKeyId: 0,
    workspaceId: project.workspaceId,
    permission: 'read_write',
    keyKind: 'ping',
    name: `ping key of project ${project.projectId}`,
  };
  try {
    return { check: await createHeartbeatJob({ deps, actor }, { name: slug, projectId: project.projectId, slug }), created: true };
  } catch (err) {
    // Two first pings at once: the other one created it.
    if (!(err instanceof HttpError && err.code === 'SLUG_TAKEN')) throw err;
    const existing = await findCheckBySlug(deps, project.workspaceId, slug);
    if (!existing || existing.projectId !== project.projectId) throw new HcRefusal(409, 'ambiguous slug');
    return { check: existing, created: false };
  }
}
