import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { ID_PADDING } from './team.js';

/**
 * A user's place in a team. The table key is (teamId, userId), so "a user is in a team at most
 * once" is the create's own attribute_not_exists condition; the member id (`/team-members/:id`)
 * is found through gsi1.
 */
export const createTeamMemberEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'teamMember', version: '1', service: 'vigil' },
      attributes: {
        teamId: { type: 'number', required: true },
        userId: { type: 'number', required: true, padding: ID_PADDING },
        teamMemberId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        createdAt: { type: 'string', required: true },
      },
      indexes: {
        byTeam: { pk: { field: 'pk', composite: ['teamId'] }, sk: { field: 'sk', composite: ['userId'] } },
        byMemberId: { index: 'gsi1', pk: { field: 'gsi1pk', composite: ['teamMemberId'] }, sk: { field: 'gsi1sk', composite: [] } },
      },
    },
    config,
  );

export type TeamMemberItem = EntityItem<ReturnType<typeof createTeamMemberEntity>>;
