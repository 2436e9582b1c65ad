import { handle } from 'hono/aws-lambda';
import { awsCoreDeps } from '../core/adapters/aws/coreDeps.js';
import type { Deps } from '../core/deps.js';
import { createSignalApp } from '../core/signalApp.js';

/** The signal app behind API Gateway, over the given Deps (tests pass their own). */
export const signalsHandler = (deps: Deps) => handle(createSignalApp(deps));

/**
 * The ping surface (`/api/signals/ping|s|p/...`) as its own Lambda, so ping traffic scales and is
 * throttled apart from the dashboard. Its cold start loads only the signal routes, and no
 * scheduler or mail client: pings (and the heartbeat jobs a slug ping creates) use neither.
 */
export const handler = signalsHandler(awsCoreDeps());
