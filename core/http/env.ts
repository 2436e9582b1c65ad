import type { Actor } from '../auth/context.js';
import type { Deps } from '../deps.js';

export type AppEnv = {
  Variables: {
    deps: Deps;
    actor: Actor;
  };
};

/** What verbs take from a request: the injected ports and the authenticated caller. */
export type RequestCtx = { deps: Deps; actor: Actor };

export const requestCtx = (c: { var: AppEnv['Variables'] }): RequestCtx => ({ deps: c.var.deps, actor: c.var.actor });
