/** @jsxImportSource hono/jsx */
import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { AppEnv } from '../../http/env.js';
import { pageCss } from './styles.js';

export type Theme = { primaryColor: string | null; backgroundColor: string | null; faviconUrl: string | null };

/** The HTML document around every public page: one nonce'd style sheet, no script. */
export function Document(props: { title: string; nonce: string; theme: Theme; children: Child }) {
  const favicon = props.theme.faviconUrl !== null && props.theme.faviconUrl.startsWith('https://') ? props.theme.faviconUrl : null;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{props.title}</title>
        {/* Without an icon of its own the browser would ask for /favicon.ico, which this install does not serve. */}
        <link rel="icon" href={favicon ?? 'data:,'} />
        <style nonce={props.nonce} dangerouslySetInnerHTML={{ __html: pageCss(props.theme) }} />
      </head>
      <body>
        <div class="wrap">{props.children}</div>
      </body>
    </html>
  );
}

/** Standards mode: the JSX renders the element tree, the doctype is ours to add. */
export const doc = async (element: { toString(): string | Promise<string> }): Promise<string> => `<!DOCTYPE html>${await element.toString()}`;

/** The status pages' security headers (CSP with a nonce, nosniff, no framing); the link pages (action.tsx) send them too. */
export function secure(c: Context<AppEnv>, nonce: string): void {
  c.header(
    'Content-Security-Policy',
    `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self' 'nonce-${nonce}'; img-src 'self' https: data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`,
  );
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'strict-origin-when-cross-origin');
  c.header('X-Frame-Options', 'DENY');
}
