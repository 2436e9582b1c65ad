import type { Actor } from '../context.js';
import type { Deps } from '../deps.js';

export type AppEnv = {
  Variables: {
    deps: Deps;
    actor: Actor;
  };
};
