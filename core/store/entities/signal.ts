import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/** LOG: a `/log` ping's body (no status change); TOO_FREQUENT: a success sooner than the job's minIntervalSeconds. */
export const SIGNAL_TYPES = ['SUCCESS', 'SUSPECT', 'FAIL', 'DEPLOYMENT', 'START', 'LOG', 'TOO_FREQUENT'] as const;

/** A signal of a check, newest last in the partition; expires by TTL (`expiresAt`, epoch seconds). */
export const createSignalEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'signal', version: '1', service: 'vigil' },
      attributes: {
        checkId: { type: 'number', required: true },
        signalId: { type: 'string', required: true },
        receivedAt: { type: 'string', required: true },
        workspaceId: { type: 'number', required: true },
        type: { type: SIGNAL_TYPES, required: true },
        /** PING (heartbeat client), SYSTEM (sweep), DEPLOYMENT, API. */
        source: { type: 'string', required: true },
        sourceIp: { type: 'string' },
        userAgent: { type: 'string' },
        method: { type: 'string' },
        /** The ping body: JSON kept as JSON text, anything else as text. */
        payload: { type: 'string' },
        payloadIsJson: { type: 'boolean' },
        durationMs: { type: 'number' },
        /**
         * DEPLOYMENT signals: deploymentId, event (started/ended), name, version, author, link.
         * Pings: exitCode (`/ping/:token/<0-255>`), rid (run id), reason (a FAIL from duration
         * bounds or a missed run).
         * `any` because a map with no declared properties keeps none of them (ElectroDB drops
         * undeclared keys); written only by core/deployments.
         */
        details: { type: 'any' },
        expiresAt: { type: 'number', required: true },
        /**
         * Set on the signal of a ping that leaves its check waiting for a timing transition: the
         * check's `dueAt` after the ping (and its due shard). Makes `byWake` a sparse index of when
         * each ping's check next needs a look; see core/sweep/wakes.ts for why the ping writes its
         * due time here rather than moving the check's own index entry.
         */
        wakeShard: { type: 'string' },
        wakeAt: { type: 'string' },
        /**
         * Set on the START signal of a run (`/start?rid=`): when the run becomes a missed run if
         * its end has not arrived (its start plus the larger of graceSeconds and
         * maxDurationSeconds). Makes `byRunDue` a sparse index the missed-run sweep reads
         * (core/sweep/missedRuns.ts); the sweep removes the entry once it has looked at the run.
         */
        runDueShard: { type: 'string' },
        runDueAt: { type: 'string' },
      },
      indexes: {
        byCheck: {
          pk: { field: 'pk', composite: ['checkId'] },
          sk: { field: 'sk', composite: ['receivedAt', 'signalId'] },
        },
        byWake: {
          index: 'gsi2',
          pk: { field: 'gsi2pk', composite: ['wakeShard'] },
          sk: { field: 'gsi2sk', composite: ['wakeAt'] },
        },
        byRunDue: {
          index: 'gsi5',
          pk: { field: 'gsi5pk', composite: ['runDueShard'] },
          sk: { field: 'gsi5sk', composite: ['runDueAt'] },
        },
      },
    },
    config,
  );

export type SignalItem = EntityItem<ReturnType<typeof createSignalEntity>>;
