import { realPause, type Pause } from '../retry.js';
import { Service } from 'electrodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createUserEntity } from './entities/user.js';
import { createWorkspaceEntity } from './entities/workspace.js';
import { createMembershipEntity } from './entities/membership.js';
import { createProjectEntity } from './entities/project.js';
import { createApiKeyEntity } from './entities/apiKey.js';
import { createRefreshFamilyEntity, createRefreshTokenEntity } from './entities/refreshToken.js';
import { createLockEntity } from './entities/lock.js';
import { createSettingEntity } from './entities/setting.js';
import { createCheckEntity, createCheckRefEntity } from './entities/check.js';
import { createSignalEntity } from './entities/signal.js';
import { createAlertChannelEntity } from './entities/alertChannel.js';
import { createAlertSentEntity } from './entities/alertSent.js';
import { createIntegrationEntity } from './entities/integration.js';
import { createAckShortLinkEntity } from './entities/ackShortLink.js';
import { createStreamConnectionEntity } from './entities/streamConnection.js';
import { createIncidentEntity } from './entities/incident.js';
import { createIncidentEpisodeEntity } from './entities/incidentEpisode.js';
import { createIncidentEventEntity } from './entities/incidentEvent.js';
import { createIncidentNoteEntity } from './entities/incidentNote.js';
import { createDependencyEntity } from './entities/dependency.js';
import { createDependencyLinkEntity } from './entities/dependencyLink.js';
import { createDeploymentEntity } from './entities/deployment.js';
import { createMaintenanceWindowEntity } from './entities/maintenanceWindow.js';
import { createWindowHoldEntity } from './entities/windowHold.js';
import { createProbeRunEntity } from './entities/probeRun.js';
import { createProbeRoundEntity } from './entities/probeRound.js';
import { createProbeRollupEntity } from './entities/probeRollup.js';
import { createQueueMessageEntity } from './entities/queueMessage.js';
import { createTeamEntity } from './entities/team.js';
import { createTeamMemberEntity } from './entities/teamMember.js';
import { createOnCallScheduleEntity } from './entities/onCallSchedule.js';
import { createOnCallOverrideEntity } from './entities/onCallOverride.js';
import { createEscalationPolicyEntity } from './entities/escalationPolicy.js';
import { createEscalationRuleEntity } from './entities/escalationRule.js';
import { createStatusPageEntity } from './entities/statusPage.js';
import { createStatusComponentEntity } from './entities/statusComponent.js';
import { createAnnouncementEntity } from './entities/announcement.js';
import { createAnnouncementEntryEntity } from './entities/announcementEntry.js';
import { createStatusPageSnapshotEntity } from './entities/statusPageSnapshot.js';
import { createStatusSubscriberEntity } from './entities/statusSubscriber.js';
import { createUptimeCursorEntity, createUptimeRollupEntity } from './entities/uptimeRollup.js';
import { currentId, idBlocks, sequentialIds } from './counters.js';
import { hotPathClient } from './client.js';

const ENTITY_FACTORIES = {
  user: createUserEntity,
  workspace: createWorkspaceEntity,
  membership: createMembershipEntity,
  project: createProjectEntity,
  apiKey: createApiKeyEntity,
  refreshToken: createRefreshTokenEntity,
  refreshFamily: createRefreshFamilyEntity,
  lock: createLockEntity,
  setting: createSettingEntity,
  check: createCheckEntity,
  checkRef: createCheckRefEntity,
  signal: createSignalEntity,
  streamConnection: createStreamConnectionEntity,
  alertChannel: createAlertChannelEntity,
  alertSent: createAlertSentEntity,
  ackShortLink: createAckShortLinkEntity,
  integration: createIntegrationEntity,
  incident: createIncidentEntity,
  incidentEpisode: createIncidentEpisodeEntity,
  incidentEvent: createIncidentEventEntity,
  incidentNote: createIncidentNoteEntity,
  dependency: createDependencyEntity,
  dependencyLink: createDependencyLinkEntity,
  deployment: createDeploymentEntity,
  maintenanceWindow: createMaintenanceWindowEntity,
  windowHold: createWindowHoldEntity,
  probeRun: createProbeRunEntity,
  probeRound: createProbeRoundEntity,
  probeRollup: createProbeRollupEntity,
  queueMessage: createQueueMessageEntity,
  team: createTeamEntity,
  teamMember: createTeamMemberEntity,
  onCallSchedule: createOnCallScheduleEntity,
  onCallOverride: createOnCallOverrideEntity,
  escalationPolicy: createEscalationPolicyEntity,
  escalationRule: createEscalationRuleEntity,
  statusPage: createStatusPageEntity,
  statusComponent: createStatusComponentEntity,
  announcement: createAnnouncementEntity,
  announcementEntry: createAnnouncementEntryEntity,
  statusPageSnapshot: createStatusPageSnapshotEntity,
  statusSubscriber: createStatusSubscriberEntity,
  uptimeRollup: createUptimeRollupEntity,
  uptimeCursor: createUptimeCursorEntity,
} as const;

type EntityConfig = Parameters<typeof createUserEntity>[0];
type EntityName = keyof typeof ENTITY_FACTORIES;
export type Entities = { [K in EntityName]: ReturnType<(typeof ENTITY_FACTORIES)[K]> };

/**
 * Each entity is built on first use: ElectroDB validates a model with a JSON-schema pass when it
 * is constructed (about a quarter of the ping Lambda's module init for all of them), and a ping uses
 * one or two of them. `assertEntitiesCompose` keeps the cross-entity index check a Service does.
 */
function lazyEntities(config: EntityConfig): Entities {
  const entities = {} as Entities;
  const define = <K extends EntityName>(name: K): void => {
    let built: Entities[K] | undefined;
    Object.defineProperty(entities, name, {
      enumerable: true,
      get: (): Entities[K] => (built ??= ENTITY_FACTORIES[name](config) as Entities[K]),
    });
  };
  for (const name of Object.keys(ENTITY_FACTORIES) as EntityName[]) define(name);
  return entities;
}

/** Builds every entity into one ElectroDB Service, which refuses indexes that collide across entities (tests call it). */
export function assertEntitiesCompose(entities: Entities): void {
  new Service({ ...entities });
}

/** Every entity of the single table, built against one injected client and table name. */
export function createStore(client: DynamoDBDocumentClient, table: string) {
  return {
    client,
    /** The plain client of the ping path (core/store/client.ts, hotPathClient). */
    hot: hotPathClient(client),
    table,
    entities: lazyEntities({ client, table }),
    /** Ids in the order asked for; concurrent callers share one counter update (core/store/counters.ts `sequentialIds`). */
    nextId: sequentialIds(client, table),
    currentId: (entity: string) => currentId(client, table, entity),
    /** Unique ids drawn from blocks this process reserves (core/store/counters.ts `idBlocks`): not dense, not ordered across processes. */
    nextIdFromBlock: idBlocks(client, table),
    /** How batch requests wait before resending what the store left unprocessed (core/store/batch.ts); a test sets one that records. */
    pause: realPause as Pause,
  };
}

export type Store = ReturnType<typeof createStore>;
