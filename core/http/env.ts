import type { Actor } from '../auth/context.js';
import type { Deps } from '../deps.js';

export type AppEnv = {
  Variables: {
    deps: Deps;
    actor: Actor;
  };
};
