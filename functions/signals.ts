import { handle } from 'hono/aws-lambda';
import { awsPingDeps } from '../core/adapters/aws/pingDeps.js';
import { createSignalApp } from '../core/signalApp.js';
import type { PingDeps } from '../core/signals/pingStore.js';

/** The ping app behind API Gateway, over the given PingDeps (tests pass their own Deps, which fit). */
export const signalsHandler = (deps: PingDeps) => handle(createSignalApp(deps));

/**
 * Token pings (`/api/signals/ping/...`) as their own Lambda, so ping traffic scales and is
 * throttled apart from the dashboard. Every scale-out pays its cold start, so it bundles only the
 * ping path: no ElectroDB, zod, OpenAPI, scheduler or mail client (functions/signals.bundle.test.ts).
 */
export const handler = signalsHandler(awsPingDeps());
