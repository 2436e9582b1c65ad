import { api, unwrap } from '../api/client';
import { forgetSession, signIn } from '../api/session';

export { signIn };

/**
 * Sign-up creates the user and their first workspace; the dashboard then signs in with the
 * password grant and `refresh_cookie`, so its refresh token is the cookie, never script-readable.
 */
export async function signUp(input: { email: string; password: string; name?: string }): Promise<void> {
  await unwrap(api.POST('/auth/signup', { body: input }));
  await signIn(input.email, input.password);
}

/** Revoked on the server (the refresh cookie's session too; the answer clears both cookies). */
export async function signOut(): Promise<void> {
  try {
    await api.POST('/auth/logout', { body: {} });
  } finally {
    forgetSession();
  }
}
