import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';
import { refreshSession, sessionStore } from './session';

export type Schemas = components['schemas'];
export type ErrorBody = Schemas['ErrorBody'];

/**
 * Each request keeps an untouched copy until its answer is in: a 401 is retried once with a
 * fresh token, and the original's body has been read by then.
 */
const retryCopies = new Map<string, Request>();

const withToken = (request: Request, token: string | null): Request => {
  if (token !== null) request.headers.set('Authorization', `Bearer ${token}`);
  return request;
};

/**
 * Bearer access token from memory on every request; on a 401, one silent refresh by cookie
 * (shared with every other request that failed meanwhile) and one retry. A failed refresh
 * leaves the 401, and the session store says signed out, which sends the app to /signin.
 */
const auth: Middleware = {
  onRequest({ request, id }) {
    const signed = withToken(request, sessionStore.token());
    retryCopies.set(id, signed.clone());
    return signed;
  },
  async onResponse({ response, id }) {
    const copy = retryCopies.get(id);
    retryCopies.delete(id);
    if (response.status !== 401 || copy === undefined) return response;
    // Sent before a refresh that has finished since: retry with its token rather than rotate again.
    const current = sessionStore.token();
    if (current !== null && copy.headers.get('Authorization') !== `Bearer ${current}`) return fetch(withToken(copy, current));
    if (!(await refreshSession())) return response;
    return fetch(withToken(copy, sessionStore.token()));
  },
  onError({ id }) {
    retryCopies.delete(id);
  },
};

export const api = createClient<paths>({ baseUrl: '/api', credentials: 'same-origin' });
api.use(auth);

/** The API's error answer as thrown by `unwrap`: message, code and per-field `details`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody | null,
  ) {
    super(body?.message ?? `Request failed (${status})`);
  }

  /** The validation messages for one field (`details[].path` as a dotted path). */
  fieldErrors(): Record<string, string> {
    const fields: Record<string, string> = {};
    for (const detail of this.body?.details ?? []) {
      const key = detail.path;
      if (key && !(key in fields)) fields[key] = detail.message;
    }
    return fields;
  }
}

/** openapi-fetch's `{ data, error, response }` as a value or a thrown ApiError, for TanStack Query. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiError(response.status, (error ?? null) as ErrorBody | null);
  // A 204 has no body: T is then the operation's "no content" type.
  return data as T;
}
