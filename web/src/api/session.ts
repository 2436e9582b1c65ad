import type { components } from './schema';

type TokenAnswer = Pick<components['schemas']['TokenResponse'], 'access_token' | 'expires_in'>;

/**
 * The signed-in session. The access token lives in this module only (never localStorage, never a
 * URL); the refresh token is an HttpOnly cookie the page cannot read, scoped to the token path. A
 * reload loses the access token and `restoreSession` gets a new one by cookie.
 */
let accessToken: string | null = null;
let state: 'unknown' | 'signedIn' | 'signedOut' = 'unknown';
const listeners = new Set<() => void>();

const notify = () => listeners.forEach((listener) => listener());

export const sessionStore = {
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  state: () => state,
  token: () => accessToken,
};

function setToken(token: string | null) {
  accessToken = token;
  state = token === null ? 'signedOut' : 'signedIn';
  notify();
}

/** The double-submit CSRF cookie (readable on purpose): the refresh must echo it in a header. */
function csrfCookie(): string | null {
  for (const part of document.cookie.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === 'vigil_csrf') return decodeURIComponent(value.join('='));
  }
  return null;
}

export class AuthError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: components['schemas']['ErrorBody'] | null,
  ) {
    super(message);
  }
}

/** RFC 6749's token endpoint takes a form; the refresh token never appears in it (the cookie carries it). */
async function tokenRequest(params: Record<string, string>, headers: Record<string, string> = {}): Promise<TokenAnswer> {
  const res = await fetch('/api/oauth/token', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params).toString(),
  });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as components['schemas']['ErrorBody'] | null;
    throw new AuthError(body?.message ?? `Sign-in failed (${res.status})`, res.status, body);
  }
  return (await res.json()) as TokenAnswer;
}

export async function signIn(email: string, password: string): Promise<void> {
  const answer = await tokenRequest({ grant_type: 'password', username: email, password, refresh_cookie: 'true' });
  setToken(answer.access_token);
}

let refreshing: Promise<boolean> | null = null;

/** Other tabs of the dashboard share the cookie: one refresh at a time across all of them (Web Locks). */
const oneTabAtATime = <T>(work: () => Promise<T>): Promise<T> => (typeof navigator !== 'undefined' && navigator.locks ? navigator.locks.request('vigil-refresh', work) : work());

/**
 * One refresh by cookie, shared by every request that saw a 401 meanwhile: the server rotates the
 * refresh token, so a second concurrent refresh would present a spent one (and, as reuse, end the
 * session). The cookie is read once the lock is held, so a tab that waited sends the rotated one.
 */
export function refreshSession(): Promise<boolean> {
  refreshing ??= oneTabAtATime(async () => {
    const csrf = csrfCookie();
    if (csrf === null) return false;
    try {
      const answer = await tokenRequest({ grant_type: 'refresh_token' }, { 'X-Vigil-CSRF': csrf });
      setToken(answer.access_token);
      return true;
    } catch {
      return false;
    }
  }).then((ok) => {
    refreshing = null;
    if (!ok) setToken(null);
    return ok;
  });
  return refreshing;
}

let restored: Promise<boolean> | null = null;
/** On load: a reload keeps you signed in when the refresh cookie is still good (one refresh per load; later callers share its answer). */
export const restoreSession = (): Promise<boolean> => (restored ??= refreshSession());

/** Forgets the token here (after the server revoked the session: see auth/actions.ts). */
export const forgetSession = (): void => setToken(null);
