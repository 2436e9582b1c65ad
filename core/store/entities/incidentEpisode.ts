import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * The outage-episode pointer of one check: `service` for SERVICE_DOWN, `dep#<dependencyId>` for a
 * reported dependency. `openIncidentId` is claimed with a conditional write (absent, and the
 * message newer than `closedAt`), so racing or repeated deliveries open one incident.
 * `closedAt` is the watermark of the last recovery: older "went down" messages are stale.
 * `awaitingRecoverySince` is set when a person resolved the episode's incident while the outage
 * (begun at that instant) went on: nothing opens until a later recovery clears it.
 */
export const createIncidentEpisodeEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'incidentEpisode', version: '1', service: 'vigil' },
      attributes: {
        checkId: { type: 'number', required: true },
        episodeKey: { type: 'string', required: true },
        workspaceId: { type: 'number' },
        openIncidentId: { type: 'number' },
        closedAt: { type: 'string' },
        awaitingRecoverySince: { type: 'string' },
      },
      indexes: {
        byCheck: {
          pk: { field: 'pk', composite: ['checkId'] },
          sk: { field: 'sk', composite: ['episodeKey'] },
        },
      },
    },
    config,
  );

export type IncidentEpisodeItem = EntityItem<ReturnType<typeof createIncidentEpisodeEntity>>;
