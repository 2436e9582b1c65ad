import type { Deps } from './deps.js';

/** A signed-in person (dashboard session). */
export type UserActor = {
  kind: 'user';
  userId: number;
  email: string;
  /** The sign-in (refresh family) of the access token, when it names one: its logout ends the streams it opened. */
  sessionId?: string | undefined;
};

/** An API key (Integration API, MCP, slug pings). A key belongs to exactly one workspace. */
export type ApiKeyActor = {
  kind: 'apiKey';
  apiKeyId: number;
  workspaceId: number;
  permission: 'read_only' | 'read_write';
  keyKind: 'service' | 'ping';
  name: string;
};

export type Actor = UserActor | ApiKeyActor;

/**
 * What every verb takes first: the injected ports and the authenticated caller. Verbs are
 * `(ctx, input)`; the first thing they do is check the caller's scope (`auth/authorize.ts`).
 */
export type Ctx = { deps: Deps; actor: Actor };

/** The one way a router turns a Hono context into a verb's `ctx`. */
export const requestCtx = (c: { var: { deps: Deps; actor: Actor } }): Ctx => ({ deps: c.var.deps, actor: c.var.actor });
