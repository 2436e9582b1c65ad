import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * One round (probe period) of an outbound check: the regions that reported a success or a
 * failure, added with `ADD` to string sets, so a region reporting twice (a retried invocation)
 * changes nothing and regions reporting at once never overwrite each other. `evaluatedAt` marks a
 * round already folded into the check's status (core/probes/rounds.ts); short TTL.
 */
export const createProbeRoundEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'probeRound', version: '1', service: 'vigil' },
      attributes: {
        checkId: { type: 'number', required: true },
        roundAt: { type: 'string', required: true },
        workspaceId: { type: 'number' },
        okRegions: { type: 'set', items: 'string' },
        failedRegions: { type: 'set', items: 'string' },
        evaluatedAt: { type: 'string' },
        expiresAt: { type: 'number' },
      },
      indexes: {
        byCheck: {
          pk: { field: 'pk', composite: ['checkId'] },
          sk: { field: 'sk', composite: ['roundAt'] },
        },
      },
    },
    config,
  );

export type ProbeRoundItem = EntityItem<ReturnType<typeof createProbeRoundEntity>>;
