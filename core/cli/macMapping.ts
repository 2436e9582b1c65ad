import { HIDDEN, type Item, secretName } from './macModel.js';

/**
 * Between the Integration API's shapes (core/checks/schema.ts, core/identity/schema.ts,
 * core/maintenance/schema.ts) and the file's (pure). Reads turn ids into names; writes turn names
 * back into ids through `Refs`. A null the API returns is left out of the file: the file states
 * only what is set.
 */
export type RefKind = 'project' | 'channel' | 'schedule' | 'team' | 'user' | 'integration' | 'check';
const REF_WORD: Record<RefKind, string> = {
  project: 'project is named',
  channel: 'alert channel is named',
  schedule: 'on-call schedule is named',
  team: 'team is named',
  user: 'member has the e-mail',
  integration: 'integration is named',
  check: 'job or check has the slug (or name)',
};

/** Names (e-mails for people) to ids and back, for each kind a file names; apply adds what it creates. */
export class Refs {
  private readonly ids = new Map<string, number>();
  private readonly names = new Map<string, string>();

  add(kind: RefKind, name: string, id: number): void {
    if (!this.ids.has(`${kind}:${name}`)) this.ids.set(`${kind}:${name}`, id);
    this.names.set(`${kind}:${id}`, name);
  }

  id(kind: RefKind, name: string): number {
    const id = this.ids.get(`${kind}:${name}`);
    if (id === undefined) throw new Error(`no ${REF_WORD[kind]} ${JSON.stringify(name)} (in the file or in the workspace)`);
    return id;
  }

  name(kind: RefKind, id: number): string {
    return this.names.get(`${kind}:${id}`) ?? `#${id}`;
  }

  readonly projectId = (name: string) => this.id('project', name);
  readonly projectName = (id: number) => this.name('project', id);
}

export type Json = Record<string, unknown>;

/** Copies the listed fields that are set (not null, not undefined), in the listed order. */
export function pick(from: Json, keys: readonly string[]): Item {
  const out: Item = {};
  for (const key of keys) if (from[key] !== null && from[key] !== undefined) out[key] = from[key];
  return out;
}

/** The same, for the fields the file item states (null included: it clears). */
export function stated(from: Item, keys: readonly string[]): Json {
  const out: Json = {};
  for (const key of keys) if (key in from && from[key] !== undefined) out[key] = from[key];
  return out;
}

export const instant = (value: unknown) => (typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : value);

// ---- projects ----

export const projectToFile = (api: Json): Item => pick(api, ['name', 'description']);
export const projectBody = (item: Item): Json => stated(item, ['name', 'description']);

// ---- jobs (heartbeat checks) ----

const JOB_FIELDS = ['graceSeconds', 'downSeverity', 'lateSeverity', 'muteNotifications', 'minDurationSeconds', 'maxDurationSeconds', 'minIntervalSeconds'] as const;

export function jobToFile(api: Json, refs: Refs): Item {
  return {
    ...pick(api, ['slug', 'name']),
    project: refs.projectName(Number(api.projectId)),
    ...pick(api, ['intervalSeconds', 'schedule', 'timezone']),
    ...pick(api, JOB_FIELDS),
    paused: api.paused,
  };
}

/** A job's body for POST or PATCH /v1/jobs: an interval clears a schedule and the other way round. */
export function jobBody(item: Item, refs: Refs): Json {
  const body: Json = { ...stated(item, ['slug', 'name', 'intervalSeconds', 'schedule', 'timezone', ...JOB_FIELDS]) };
  if (typeof item.project === 'string') body.projectId = refs.projectId(item.project);
  if (item.schedule !== undefined && item.schedule !== null) body.intervalSeconds = null;
  else if (item.intervalSeconds !== undefined) Object.assign(body, { schedule: null, timezone: null });
  return body;
}

// ---- HTTP checks ----

const CHECK_FIELDS = ['intervalSeconds', 'graceSeconds', 'downSeverity', 'lateSeverity', 'muteNotifications'] as const;

export function checkToFile(api: Json, refs: Refs): Item {
  const config = { ...((api.config ?? {}) as Json) };
  if (config.latencyWarnMs === null) delete config.latencyWarnMs;
  return { ...pick(api, ['slug', 'name']), project: refs.projectName(Number(api.projectId)), ...pick(api, CHECK_FIELDS), paused: api.paused, config };
}

export function checkBody(item: Item, refs: Refs): Json {
  const body: Json = stated(item, ['slug', 'name', ...CHECK_FIELDS, 'config']);
  if (typeof item.project === 'string') body.projectId = refs.projectId(item.project);
  return body;
}

/** Export's copy of a check: each probe header's value becomes a `${VIGIL_CHECK_<slug>_HEADER_<name>}` reference. */
export function redactCheck(item: Item): Item {
  const config = item.config as Json | undefined;
  const headers = config?.customHeaders as Record<string, string> | undefined;
  if (!config || !headers) return item;
  if (Object.keys(headers).length === 0) {
    const { customHeaders: _empty, ...rest } = config;
    return { ...item, config: rest };
  }
  const owner = String(item.slug ?? item.name);
  const customHeaders = Object.fromEntries(Object.keys(headers).map((name) => [name, `\${${secretName('check', owner, 'header', name)}}`]));
  return { ...item, config: { ...config, customHeaders } };
}

// ---- maintenance windows ----

const WINDOW_FIELDS = ['suppressAlerts', 'suppressIncidents', 'autoPublishToStatusPage', 'timezone', 'recurringCron'] as const;
/** What POST /v1/maintenance-windows takes; the rest is set by a PUT right after. */
const WINDOW_CREATE_FIELDS = ['name', 'description', 'suppressAlerts', 'suppressIncidents'] as const;

/** Only SCHEDULED and ACTIVE windows are managed: a finished one is history. */
export const windowIsLive = (api: Json) => api.state === 'SCHEDULED' || api.state === 'ACTIVE';

export function windowToFile(api: Json, refs: Refs): Item {
  return {
    ...pick(api, ['name', 'description']),
    startAt: instant(api.startAt),
    endAt: instant(api.endAt),
    projects: ((api.projectIds ?? []) as number[]).map(refs.projectName).sort(),
    ...pick(api, WINDOW_FIELDS),
  };
}

/** The file's window with its instants written as the API writes them, so `+02:00` and `Z` compare equal. */
export const windowNormalized = (item: Item): Item => ({
  ...item,
  ...(item.startAt !== undefined ? { startAt: instant(item.startAt) } : {}),
  ...(item.endAt !== undefined ? { endAt: instant(item.endAt) } : {}),
  ...(Array.isArray(item.projects) ? { projects: [...(item.projects as string[])].sort() } : {}),
});

function windowCommon(item: Item, refs: Refs): Json {
  const body: Json = stated(item, ['startAt', 'endAt']);
  if (Array.isArray(item.projects)) body.projectIds = (item.projects as string[]).map(refs.projectId);
  return body;
}

/** POST /v1/maintenance-windows, and the PUT that sets what the create body lacks (undefined when nothing). */
export function windowCreate(item: Item, refs: Refs): { create: Json; rest: Json | undefined } {
  const rest = stated(
    item,
    WINDOW_FIELDS.filter((k) => !(WINDOW_CREATE_FIELDS as readonly string[]).includes(k)),
  );
  return { create: { ...stated(item, WINDOW_CREATE_FIELDS), ...windowCommon(item, refs) }, rest: Object.keys(rest).length > 0 ? rest : undefined };
}

export const windowUpdate = (item: Item, refs: Refs): Json => ({ ...stated(item, ['name', 'description', ...WINDOW_FIELDS]), ...windowCommon(item, refs) });

// ---- alert channels ----

/**
 * The config fields of each channel type that are credentials: an API key reads them masked
 * (core/alerting/channels.ts), so the plan cannot compare them and export writes a reference.
 */
const CHANNEL_SECRETS: Record<string, readonly string[]> = {
  SLACK: ['webhookUrl'],
  WEBHOOK: ['url'],
  TEAMS: ['url'],
  DISCORD: ['url'],
  NTFY: ['url', 'token'],
  TELEGRAM: ['botToken'],
  PUSHOVER: ['userKey', 'appToken'],
  PAGERDUTY: ['routingKey'],
  SMS: ['phoneNumber'],
};
/** View-only fields (a webhook's signing-secret hint): no create body takes them. */
const CHANNEL_VIEW_ONLY = new Set(['secretHint']);

export function channelToFile(api: Json): Item {
  const secrets = CHANNEL_SECRETS[String(api.type)] ?? [];
  const config: Json = {};
  for (const [key, value] of Object.entries((api.config ?? {}) as Json)) {
    if (value === null || CHANNEL_VIEW_ONLY.has(key)) continue;
    config[key] = secrets.includes(key) ? HIDDEN : value;
  }
  return { name: api.name, type: api.type, enabled: api.enabled, config };
}

/** Export's copy of a channel: each credential a `${VIGIL_CHANNEL_<name>_<field>}` reference. */
export function redactChannel(item: Item): Item {
  const config = Object.fromEntries(
    Object.entries((item.config ?? {}) as Json).map(([key, value]) => [key, value === HIDDEN ? `\${${secretName('channel', String(item.name), key)}}` : value]),
  );
  return { ...item, config };
}

export const channelCreate = (item: Item): Json => stated(item, ['name', 'type', 'enabled', 'config']);
/** PATCH replaces the whole config, credentials included (resolved from the environment). */
export const channelUpdate = (item: Item): Json => stated(item, ['name', 'enabled', 'config']);

// ---- status pages and their components ----

const PAGE_FIELDS = [
  'visibility',
  'logoUrl',
  'primaryColor',
  'backgroundColor',
  'faviconUrl',
  'showUptimeHistory',
  'uptimeHistoryDays',
  'showIncidentHistory',
  'headerHtml',
  'footerHtml',
  'enabled',
  'customDomain',
] as const;
const COMPONENT_FIELDS = ['name', 'description', 'groupName', 'showUptimeBar'] as const;

/** A component shows a job or check (by slug, or name without one) or a whole project (by name). */
export function componentToFile(api: Json, refs: Refs): Item {
  const target = api.checkId != null ? { check: refs.name('check', Number(api.checkId)) } : api.projectId != null ? { project: refs.projectName(Number(api.projectId)) } : {};
  return { ...pick(api, COMPONENT_FIELDS), ...target };
}

export function componentBody(item: Item, refs: Refs, position: number): Json {
  const body: Json = { ...stated(item, COMPONENT_FIELDS), position };
  if (typeof item.check === 'string') body.checkId = refs.id('check', item.check);
  if (typeof item.project === 'string') body.projectId = refs.projectId(item.project);
  return body;
}

/** Components in their order on the page; a page's password is never shown, so it is hidden. */
export function pageToFile(api: Json, components: Json[], refs: Refs): Item {
  return {
    ...pick(api, ['slug', 'name']),
    ...pick(api, PAGE_FIELDS),
    ...(api.hasPassword === true ? { password: HIDDEN } : {}),
    components: [...components].sort((a, b) => Number(a.position) - Number(b.position)).map((c) => componentToFile(c, refs)),
  };
}

export const redactPage = (item: Item): Item => (item.password === HIDDEN ? { ...item, password: `\${${secretName('status_page', String(item.slug), 'password')}}` } : item);

export const pageBody = (item: Item): Json => stated(item, ['slug', 'name', ...PAGE_FIELDS, 'password']);
