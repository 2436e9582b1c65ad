import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/** A note on an incident. Soft-deleted (`deletedAt`); only its author changes it. */
export const createIncidentNoteEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'incidentNote', version: '1', service: 'vigil' },
      attributes: {
        incidentId: { type: 'number', required: true },
        noteId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        /** The user who wrote it; absent when an API key wrote it (through MCP). */
        authorId: { type: 'number' },
        authorApiKeyId: { type: 'number' },
        authorApiKeyName: { type: 'string' },
        body: { type: 'string', required: true },
        deletedAt: { type: 'string' },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byIncident: {
          pk: { field: 'pk', composite: ['incidentId'] },
          sk: { field: 'sk', composite: ['noteId'] },
        },
      },
    },
    config,
  );

export type IncidentNoteItem = EntityItem<ReturnType<typeof createIncidentNoteEntity>>;
