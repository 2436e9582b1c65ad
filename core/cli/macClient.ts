import {
  channelCreate,
  channelToFile,
  channelUpdate,
  checkBody,
  checkToFile,
  componentBody,
  componentToFile,
  pageBody,
  pageToFile,
  jobBody,
  jobToFile,
  projectBody,
  projectToFile,
  type RefKind,
  Refs,
  windowCreate,
  windowIsLive,
  windowToFile,
  windowUpdate,
} from './macMapping.js';
import { policyBody, policyToFile, scheduleBody, scheduleToFile } from './macMappingOnCall.js';
import type { Item, Section, VigilFile } from './macModel.js';
import { changedFields } from './macPlan.js';

type Json = Record<string, unknown>;

/** A refusal from Vigil, with its status and the spec's error message and details. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type ErrorShape = { message?: string; details?: { path: string; message: string }[] };
const errorText = (error: ErrorShape) => [error.message, ...(error.details ?? []).slice(0, 20).map((d) => `  ${d.path}: ${d.message}`)].join('\n');

/** The Integration API as the commands use it: every HTTP call of `vigil export | plan | apply` is here. */
export class VigilClient {
  constructor(
    private readonly base: string,
    private readonly key: string,
    private readonly fetcher: typeof fetch,
    /** Told each time the key's rate limit (100 requests a minute, core/http/rateLimit.ts) makes it wait. */
    private readonly onWait: (seconds: number) => void = () => {},
    private readonly wait: (seconds: number) => Promise<void> = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000)),
  ) {}

  async call<T = Json>(method: string, path: string, body?: unknown): Promise<T> {
    const once = () =>
      this.fetcher(`${this.base}/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${this.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    // A read is sent again once when the connection drops (a pooled socket the server closed while
    // a 429 was waited out); a write is not, since it may have been done.
    const send = () => once().catch((error: unknown) => (method === 'GET' && error instanceof TypeError ? once() : Promise.reject(error)));
    let response = await send();
    // A large file outruns the key's rate limit: a refused request did nothing, so it is sent again once the window turns.
    for (let tries = 0; response.status === 429 && tries < 30; tries++) {
      await response.body?.cancel();
      const seconds = Math.min(60, Math.max(1, Number(response.headers.get('retry-after')) || 1));
      this.onWait(seconds);
      await this.wait(seconds);
      response = await send();
    }
    const text = await response.text();
    if (!response.ok) {
      let message = text;
      try {
        message = errorText(JSON.parse(text) as ErrorShape);
      } catch {
        // Not Vigil's error shape (a proxy's page): shown as it came.
      }
      throw new ApiError(response.status, `${method} ${path}: ${response.status}: ${message}`);
    }
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** Every item of a list, page by page (the /v1 envelope), or the array a list answers whole. */
  async listAll(path: string): Promise<Json[]> {
    const items: Json[] = [];
    for (let page = 1; ; page++) {
      const answer = await this.call<Json[] | { items: Json[]; pageCount: number }>('GET', `${path}${path.includes('?') ? '&' : '?'}page=${page}&limit=100`);
      if (Array.isArray(answer)) return answer;
      items.push(...answer.items);
      if (page >= answer.pageCount || answer.items.length === 0) return items;
    }
  }
}

/** The workspace in the file's shape, and the id behind each item (ids never reach the file). */
export type Workspace = { file: VigilFile; idOf: Map<Item, number>; refs: Refs };

export async function readWorkspace(client: VigilClient, sections: readonly Section[]): Promise<Workspace> {
  const projects = await client.listAll('/projects');
  const refs = new Refs();
  for (const p of projects) refs.add('project', String(p.name), Number(p.id));
  const idOf = new Map<Item, number>();
  const file: VigilFile = { version: 1 };
  const keep = (section: Section, rows: Json[], toFile: (row: Json) => Item) => {
    if (!sections.includes(section)) return;
    file[section] = rows.map((row) => {
      const item = toFile(row);
      idOf.set(item, Number(row.id));
      return item;
    });
  };
  const wants = (...names: Section[]) => names.some((name) => sections.includes(name));
  // What policies and schedules name: people by e-mail, teams, channels and schedules by name.
  const named = async (path: string, kind: RefKind, key = 'name', id = 'id') => {
    const rows = await client.listAll(path);
    for (const row of rows) refs.add(kind, String(row[key]), Number(row[id]));
    return rows;
  };
  if (wants('onCallSchedules', 'escalationPolicies')) await named('/members', 'user', 'email', 'userId');
  if (wants('escalationPolicies')) await Promise.all([named('/teams', 'team'), named('/integrations', 'integration')]);
  keep('projects', projects, projectToFile);
  if (wants('alertChannels', 'escalationPolicies')) keep('alertChannels', await named('/alert-channels', 'channel'), channelToFile);
  if (wants('onCallSchedules', 'escalationPolicies')) keep('onCallSchedules', await named('/on-call-schedules', 'schedule'), (row) => scheduleToFile(row, refs));
  if (wants('escalationPolicies')) keep('escalationPolicies', await client.listAll('/escalation-policies'), (row) => policyToFile(row, refs));
  // Status page components name jobs and checks by slug (or name): both lists are read for them too.
  const checkRows = async (path: string) => {
    const rows = await client.listAll(path);
    for (const row of rows) refs.add('check', String(row.slug ?? row.name), Number(row.id));
    return rows;
  };
  if (wants('jobs', 'statusPages')) keep('jobs', await checkRows('/jobs'), (row) => jobToFile(row, refs));
  if (wants('checks', 'statusPages')) keep('checks', await checkRows('/checks'), (row) => checkToFile(row, refs));
  if (wants('statusPages')) {
    const pages = await client.listAll('/status-pages');
    const components = await Promise.all(pages.map((page) => client.listAll(`/status-pages/${Number(page.id)}/components`)));
    const byId = new Map(pages.map((page, i) => [page, components[i] ?? []]));
    keep('statusPages', pages, (row) => pageToFile(row, byId.get(row) ?? [], refs));
  }
  if (wants('maintenanceWindows')) keep('maintenanceWindows', (await client.listAll('/maintenance-windows')).filter(windowIsLive), (row) => windowToFile(row, refs));
  return { file, idOf, refs };
}

/** Makes a page's components the file's list, in its order: matched by name, the others removed. */
async function syncComponents(client: VigilClient, pageId: number, wanted: unknown, refs: Refs): Promise<void> {
  if (!Array.isArray(wanted)) return;
  const path = `/status-pages/${pageId}/components`;
  const left = new Map((await client.listAll(path)).map((c) => [String(c.name), c]));
  for (const [position, component] of (wanted as Item[]).entries()) {
    const found = left.get(String(component.name));
    left.delete(String(component.name));
    const body = componentBody(component, refs, position);
    if (!found) await client.call('POST', path, body);
    else if (found.position !== position || changedFields(component, componentToFile(found, refs)).length > 0) await client.call('PATCH', `${path}/${Number(found.id)}`, body);
  }
  for (const component of left.values()) await client.call('DELETE', `${path}/${Number(component.id)}`);
}

/** Pauses or resumes a job or check when the file says otherwise. */
async function settlePause(client: VigilClient, path: string, id: number, want: unknown, now: unknown) {
  if (typeof want === 'boolean' && want !== now) await client.call('POST', `${path}/${id}/${want ? 'pause' : 'resume'}`);
}

const paths = { jobs: '/jobs', checks: '/checks' } as const;

/** Creates one item; projects report their id so later sections can name them. */
export async function createItem(client: VigilClient, section: Section, item: Item, ws: Workspace): Promise<void> {
  if (section === 'projects') {
    const created = await client.call('POST', '/projects', projectBody(item));
    ws.refs.add('project', String(created.name), Number(created.id));
  } else if (section === 'alertChannels') {
    const created = await client.call('POST', '/alert-channels', channelCreate(item));
    ws.refs.add('channel', String(created.name), Number(created.id));
  } else if (section === 'onCallSchedules') {
    const created = await client.call('POST', '/on-call-schedules', scheduleBody(item, ws.refs));
    ws.refs.add('schedule', String(created.name), Number(created.id));
  } else if (section === 'escalationPolicies') await client.call('POST', '/escalation-policies', policyBody(item, ws.refs));
  else if (section === 'statusPages') {
    const created = await client.call('POST', '/status-pages', pageBody(item));
    await syncComponents(client, Number(created.id), item.components, ws.refs);
  } else if (section === 'jobs' || section === 'checks') {
    const { paused: _paused, ...rest } = item;
    const body = section === 'jobs' ? jobBody(rest, ws.refs) : checkBody(rest, ws.refs);
    const created = await client.call('POST', paths[section], body);
    ws.refs.add('check', String(created.slug ?? created.name), Number(created.id));
    await settlePause(client, paths[section], Number(created.id), item.paused, created.paused);
  } else if (section === 'maintenanceWindows') {
    const { create, rest } = windowCreate(item, ws.refs);
    const created = await client.call('POST', '/maintenance-windows', create);
    // The create body lacks time zone, recurrence and publishing: set them only when they differ.
    if (rest && changedFields(rest, windowToFile(created, ws.refs)).length > 0) await client.call('PUT', `/maintenance-windows/${Number(created.id)}`, rest);
  } else throw new Error(`${section} are not supported by this version of vigil`);
}

/** New checks per `POST /v1/checks/batch`, its limit: 1,000 checks are ten requests, not a thousand. */
export const CHECK_BATCH = 100;

type BatchResult = { index: number; status: number; check?: Json; error?: ErrorShape };

/**
 * Creates up to CHECK_BATCH checks in one request. The server creates each item on its own, in
 * order, so the answer is each item's outcome: undefined when created (and paused if the file says
 * so), or the error a single `POST /checks` would have thrown for it.
 */
export async function createChecks(client: VigilClient, items: readonly Item[], ws: Workspace): Promise<(Error | undefined)[]> {
  const path = '/checks/batch';
  const bodies = items.map(({ paused: _paused, ...rest }) => checkBody(rest, ws.refs));
  const { results } = await client.call<{ results: BatchResult[] }>('POST', path, { items: bodies });
  const outcomes: (Error | undefined)[] = [];
  for (const [index, item] of items.entries()) {
    const result = results[index];
    if (result?.status !== 201 || !result.check) {
      const status = result?.status ?? 0;
      outcomes.push(new ApiError(status, `POST ${path} item ${index}: ${status}: ${result?.error ? errorText(result.error) : 'no result'}`));
      continue;
    }
    const created = result.check;
    ws.refs.add('check', String(created.slug ?? created.name), Number(created.id));
    try {
      await settlePause(client, paths.checks, Number(created.id), item.paused, created.paused);
      outcomes.push(undefined);
    } catch (error) {
      outcomes.push(error instanceof Error ? error : new Error(String(error)));
    }
  }
  return outcomes;
}

export async function updateItem(client: VigilClient, section: Section, id: number, item: Item, current: Item, refs: Refs): Promise<void> {
  if (section === 'projects') await client.call('PATCH', `/projects/${id}`, projectBody(item));
  else if (section === 'alertChannels') await client.call('PATCH', `/alert-channels/${id}`, channelUpdate(item));
  else if (section === 'onCallSchedules') await client.call('PUT', `/on-call-schedules/${id}`, scheduleBody(item, refs));
  else if (section === 'escalationPolicies') await client.call('PUT', `/escalation-policies/${id}`, policyBody(item, refs));
  else if (section === 'statusPages') {
    const { components, ...page } = item;
    const { components: _was, ...was } = current;
    if (changedFields(page, was).length > 0) await client.call('PATCH', `/status-pages/${id}`, pageBody(page));
    await syncComponents(client, id, components, refs);
  } else if (section === 'jobs' || section === 'checks') {
    const { paused, ...rest } = item;
    const { paused: _now, ...was } = current;
    if (changedFields(rest, was).length > 0) await client.call('PATCH', `${paths[section]}/${id}`, section === 'jobs' ? jobBody(rest, refs) : checkBody(rest, refs));
    await settlePause(client, paths[section], id, paused, current.paused);
  } else if (section === 'maintenanceWindows') await client.call('PUT', `/maintenance-windows/${id}`, windowUpdate(item, refs));
  else throw new Error(`${section} are not supported by this version of vigil`);
}

export async function deleteItem(client: VigilClient, section: Section, id: number): Promise<void> {
  if (section === 'projects') await client.call('DELETE', `/projects/${id}`);
  else if (section === 'alertChannels') await client.call('DELETE', `/alert-channels/${id}`);
  else if (section === 'onCallSchedules') await client.call('DELETE', `/on-call-schedules/${id}`);
  else if (section === 'escalationPolicies') await client.call('DELETE', `/escalation-policies/${id}`);
  else if (section === 'statusPages') await client.call('DELETE', `/status-pages/${id}`);
  else if (section === 'jobs' || section === 'checks') await client.call('DELETE', `${paths[section]}/${id}`);
  // A window is ended, not erased: its history stays.
  else if (section === 'maintenanceWindows') await client.call('POST', `/maintenance-windows/${id}/end`);
  else throw new Error(`${section} are not supported by this version of vigil`);
}
