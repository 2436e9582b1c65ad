/** @jsxImportSource hono/jsx */
import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import type { AppEnv } from '../../http/env.js';
import { Document, doc, secure } from './layout.js';

/**
 * The pages behind links in mail (subscriber confirmation and unsubscribe, an e-mail alert
 * channel's confirmation). Mail scanners and link previews follow links with GET, so a GET only
 * renders this page, whose button POSTs back to the same address (no `action`: the form posts to
 * the page's own URL, query included); only the POST acts. Server-rendered with Hono's JSX
 * (escaping by construction) under the status pages' CSP, no script, nothing cached.
 */
export type LinkAction = { title: string; text: string; button: string };

const plainTheme = { primaryColor: null, backgroundColor: null, faviconUrl: null };

function ActionView(props: { nonce: string; title: string; text: string; button?: string }) {
  return (
    <Document title={props.title} nonce={props.nonce} theme={plainTheme}>
      <main class="card">
        <h1>{props.title}</h1>
        <p>{props.text}</p>
        {props.button ? (
          <form class="login" method="post">
            <button type="submit">{props.button}</button>
          </form>
        ) : null}
      </main>
    </Document>
  );
}

async function page(c: Context<AppEnv>, status: 200 | 404, props: { title: string; text: string; button?: string }) {
  const nonce = randomBytes(16).toString('base64');
  secure(c, nonce);
  c.header('Cache-Control', 'no-store');
  return c.html(await doc(<ActionView nonce={nonce} {...props} />), status);
}

/** GET: the page with the button; acts on nothing. */
export const renderLinkPage = (c: Context<AppEnv>, action: LinkAction) => page(c, 200, action);

/** Whether the POST came from the page's form (a browser wants HTML back) rather than an API client or a one-click mail client. */
export const wantsHtml = (c: Context<AppEnv>): boolean => (c.req.header('accept') ?? '').includes('text/html');

/** The answer after a POST from the page's form. */
export const renderLinkDone = (c: Context<AppEnv>, title: string, text: string) => page(c, 200, { title, text });
