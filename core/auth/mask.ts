/**
 * What a caller below the role that manages a secret sees of it: enough to recognise it, never
 * enough to use it. Probe header values (an `authorization` header is a credential) show from
 * MEMBER; Slack webhook URLs (the path is the credential) from ADMIN.
 */
export const MASKED = '********';

export const maskHeaderValues = (headers: Record<string, string>): Record<string, string> => Object.fromEntries(Object.keys(headers).map((name) => [name, MASKED]));

/** `https://hooks.slack.com/…wxyz`: the origin and the last four characters. */
export function maskUrl(url: string): string {
  let origin = '';
  try {
    origin = new URL(url).origin;
  } catch {
    origin = '';
  }
  return `${origin}/…${url.slice(-4)}`;
}
