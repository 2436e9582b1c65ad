/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
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
