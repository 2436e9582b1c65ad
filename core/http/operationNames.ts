import type { OpenAPIHono } from '@hono/zod-openapi';

/**
 * `operationId` and `summary` for every operation of a served OpenAPI document. SDK generators
 * name their methods after the id, so it is derived from the method and path by one rule (stable:
 * the same route always gets the same name) and read like an SDK method: `listChecks`,
 * `getCheck`, `createCheck`, `updateCheck`, `deleteCheck`, `pauseCheck`. A route that sets its
 * own `operationId`/`summary` in `createRoute` keeps them; `NAMED` holds the routes the rule
 * would name badly. The uniqueness of the result is tested (core/http/operationNames.test.ts).
 */

type Document = ReturnType<OpenAPIHono['getOpenAPI31Document']>;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** A last segment that starts with one of these acts on what precedes it: `POST /checks/{id}/pause`. */
const VERBS = new Set(['pause', 'resume', 'rotate', 'transfer', 'acknowledge', 'resolve', 'monitor', 'end', 'cancel', 'test', 'verify', 'reorder', 'simulate', 'confirm', 'check']);

const PING_KINDS: [string, string, string][] = [
  ['', 'Success', 'a success'],
  ['/start', 'Start', 'a start'],
  ['/fail', 'Fail', 'a failure'],
  ['/log', 'Log', 'a log line'],
  ['/{exitCode}', 'ExitCode', 'an exit code'],
];
const PING_ROUTES: [string, string, string][] = [
  ['/signals/ping/{token}', '', 'by token'],
  ['/signals/s/{slug}', 'BySlug', 'by slug (API key)'],
  ['/signals/p/{pingKey}/{slug}', 'ByPingKey', 'by ping key and slug'],
];

/** `METHOD /path` (as the document spells it) -> [operationId, summary]. */
const NAMED: Record<string, [string, string]> = {
  'POST /auth/signup': ['signUp', 'Sign up: a user, a workspace and a session'],
  'POST /oauth/token': ['issueToken', 'Issue a session token (OAuth 2.0 password and refresh_token grants)'],
  'POST /auth/logout': ['logOut', 'Log out'],
  'POST /auth/password': ['changePassword', 'Change the password'],
  'POST /streams/ticket': ['createStreamTicket', 'Create a single-use ticket for the WebSocket stream'],
  'GET /me': ['getMe', 'Get the signed-in user and their workspaces'],
  'GET /whoami': ['whoAmI', 'Get the API key and its workspace'],
  'GET /metrics': ['getMetrics', "Get the workspace's metrics"],
  'POST /workspaces/{id}/members': ['addWorkspaceMember', 'Add a workspace member'],
  'DELETE /workspaces/{id}/members/{userId}': ['removeWorkspaceMember', 'Remove a workspace member'],
  // Links in mail open a page (GET) whose button acts (POST), so a scanner that follows links changes nothing.
  'GET /alert-channels/confirm/{token}': ['showAlertChannelConfirmation', 'Show the page that confirms an e-mail alert channel (link from the mail)'],
  'POST /alert-channels/confirm/{token}': ['confirmAlertChannel', 'Confirm an e-mail alert channel'],
  'GET /public/status/{slug}/subscriptions/confirm': ['showStatusPageSubscriptionConfirmation', 'Show the page that confirms a subscription (link from the mail)'],
  'POST /public/status/{slug}/subscriptions/confirm': ['confirmStatusPageSubscription', 'Confirm a subscription to a status page'],
  'GET /checks/token/{token}': ['getCheckByToken', 'Get a check by its ping token'],
  'POST /checks/bulk': ['bulkUpdateChecks', 'Pause, resume or delete checks in bulk'],
  'GET /checks/sparklines': ['listCheckSparklines', 'List the latency sparklines of checks'],
  'GET /badges/checks/{file}': ['getCheckBadgeFile', 'Get a check badge by file name'],
  'GET /signals/token/{token}': ['listSignalsByToken', "List a check's signals by its ping token"],
  'GET /signals/sse': ['streamSignals', 'Stream signals (server-sent events)'],
  'GET /incident-events/{incidentId}': ['listIncidentEvents', "List an incident's timeline"],
  'GET /incident-notes/{incidentId}': ['listIncidentNotes', "List an incident's notes"],
  'POST /team-members': ['addTeamMember', 'Add a team member'],
  'DELETE /team-members/{id}': ['removeTeamMember', 'Remove a team member'],
  'GET /on-call-schedules/{id}/on-call': ['whoIsOnCall', 'Who is on call on a schedule'],
  'GET /on-call-schedules/{id}/calendar.ics': ['getOnCallScheduleCalendar', 'Get a schedule as an iCalendar feed'],
  'POST /on-call-schedules/{id}/calendar-secret': ['rotateOnCallCalendarSecret', 'Create or rotate the secret calendar URL'],
  'DELETE /on-call-schedules/{id}/calendar-secret': ['deleteOnCallCalendarSecret', 'Turn the secret calendar URL off'],
  'GET /on-call-calendars/{token}/calendar.ics': ['getOnCallCalendarBySecret', 'Get a schedule calendar by its secret URL'],
  'PATCH /status-pages/{id}/components/reorder': ['reorderStatusPageComponents', "Reorder a status page's components"],
  'GET /public/status/{slug}': ['getPublicStatusPage', 'Get a public status page'],
  'GET /public/status/{slug}/events': ['streamPublicStatusPageEvents', 'Stream a public status page (server-sent events)'],
  'POST /public/status/{slug}/auth': ['unlockPublicStatusPage', 'Unlock a password-protected status page'],
  'POST /public/status/{slug}/subscribe': ['subscribeToStatusPage', 'Subscribe to a status page'],
  'GET /public/status/{slug}/unsubscribe': ['showStatusPageUnsubscribe', 'Show the page that unsubscribes from a status page (link from the mail)'],
  'POST /public/status/{slug}/unsubscribe': ['unsubscribeFromStatusPage', 'Unsubscribe from a status page'],
};
for (const [route, by, byText] of PING_ROUTES) {
  for (const [suffix, kind, kindText] of PING_KINDS) {
    NAMED[`GET ${route}${suffix}`] = [`ping${kind}${by}`, `Report ${kindText} ${byText}`];
    NAMED[`POST ${route}${suffix}`] = [`postPing${kind}${by}`, `Report ${kindText} ${byText}, with a body`];
  }
}

const isParam = (segment: string): boolean => segment.startsWith('{');
const pascal = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);
/** `maintenance-windows` -> ['maintenance', 'windows']; `feed.rss` -> ['feed', 'rss']. */
const wordsOf = (segment: string): string[] => segment.split(/[-.]/).filter(Boolean);
const isPlural = (word: string): boolean => word.length > 3 && /[^su]s$/.test(word) && word !== 'stats';
const singular = (word: string): string => (!isPlural(word) ? word : word.endsWith('ies') ? `${word.slice(0, -3)}y` : word.slice(0, -1));
/** A segment's words with its last word made singular: `escalation-policies` -> `EscalationPolicy`. */
const singularName = (segment: string): string => {
  const words = wordsOf(segment);
  return words.map((w, i) => pascal(i === words.length - 1 ? singular(w) : w)).join('');
};
const name = (segment: string): string => wordsOf(segment).map(pascal).join('');

const METHOD_VERBS: Record<string, string> = { get: 'get', post: 'create', put: 'update', patch: 'update', delete: 'delete' };

/** The rule: the resource the path names (singular), and a verb from the method or a trailing action. */
export function operationIdOf(method: string, path: string): string {
  // A public status page is addressed by slug under /public/status: name it as a page.
  const segments = path
    .replace(/^\/public\/status\/\{slug\}/, '/public-status-pages/{slug}')
    .split('/')
    .filter(Boolean);
  const statics = segments.filter((s) => !isParam(s));
  const last = segments.at(-1) ?? '';
  const verb = METHOD_VERBS[method] ?? method;
  if (isParam(last) || statics.length === 0) return verb + statics.map(singularName).join('');
  const head = statics.slice(0, -1).map(singularName).join('');
  const tail = statics.at(-1) ?? '';
  const [first = '', ...rest] = wordsOf(tail);
  if (VERBS.has(first)) return first + head + rest.map(pascal).join('');
  const lastWord = wordsOf(tail).at(-1) ?? '';
  if (isPlural(lastWord)) return method === 'get' ? `list${head}${name(tail)}` : verb + head + singularName(tail);
  return verb + head + name(tail);
}

/** `listStatusPageAnnouncements` -> `List status page announcements`. */
export const summaryOf = (operationId: string): string => {
  const words = operationId.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/**
 * Fills in what a route left out, in place: the id and summary, and `security: []` on an operation
 * that declares none (no credential: signals, public pages, sign-up), as linters want it explicit.
 */
export function nameOperations(doc: Document): Document {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const [id, summary] = NAMED[`${method.toUpperCase()} ${path}`] ?? [operationIdOf(method, path), undefined];
      operation.operationId ??= id;
      operation.summary ??= summary ?? summaryOf(operation.operationId);
      operation.security ??= [];
    }
  }
  return doc;
}
