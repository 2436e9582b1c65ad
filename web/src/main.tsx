import { restoreSession } from './api/session';

/*
 * The page's entry is this small module: it asks for the session before the app's modules are
 * evaluated. The cookie refresh waits for a cross-tab lock, and the browser takes tens of
 * milliseconds to grant one at load; asked for here, the grant arrives while the app loads instead
 * of after it. `restoreSession` is shared, so boot.tsx gets this same answer.
 */
void restoreSession();
void import('./boot');
