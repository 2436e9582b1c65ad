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
import { createUptimeCursorEntity, createUptimeRollupEntity } from './entities/uptimeRollup.js';
import { currentId, nextId } from './counters.js';
import { hotPathClient } from './client.js';

/** Every entity of the single table, built against one injected client and table name. */
export function createStore(client: DynamoDBDocumentClient, table: string) {
  const config = { client, table };
  const entities = {
    user: createUserEntity(config),
    workspace: createWorkspaceEntity(config),
    membership: createMembershipEntity(config),
    project: createProjectEntity(config),
    apiKey: createApiKeyEntity(config),
    refreshToken: createRefreshTokenEntity(config),
    refreshFamily: createRefreshFamilyEntity(config),
    lock: createLockEntity(config),
    setting: createSettingEntity(config),
    check: createCheckEntity(config),
    checkRef: createCheckRefEntity(config),
    signal: createSignalEntity(config),
    streamConnection: createStreamConnectionEntity(config),
    alertChannel: createAlertChannelEntity(config),
    alertSent: createAlertSentEntity(config),
    incident: createIncidentEntity(config),
    incidentEpisode: createIncidentEpisodeEntity(config),
    incidentEvent: createIncidentEventEntity(config),
    incidentNote: createIncidentNoteEntity(config),
    dependency: createDependencyEntity(config),
    dependencyLink: createDependencyLinkEntity(config),
    deployment: createDeploymentEntity(config),
    maintenanceWindow: createMaintenanceWindowEntity(config),
    windowHold: createWindowHoldEntity(config),
    probeRun: createProbeRunEntity(config),
    probeRound: createProbeRoundEntity(config),
    probeRollup: createProbeRollupEntity(config),
    queueMessage: createQueueMessageEntity(config),
    team: createTeamEntity(config),
    teamMember: createTeamMemberEntity(config),
    onCallSchedule: createOnCallScheduleEntity(config),
    onCallOverride: createOnCallOverrideEntity(config),
    escalationPolicy: createEscalationPolicyEntity(config),
    escalationRule: createEscalationRuleEntity(config),
    statusPage: createStatusPageEntity(config),
    statusComponent: createStatusComponentEntity(config),
    announcement: createAnnouncementEntity(config),
    announcementEntry: createAnnouncementEntryEntity(config),
    statusPageSnapshot: createStatusPageSnapshotEntity(config),
    uptimeRollup: createUptimeRollupEntity(config),
    uptimeCursor: createUptimeCursorEntity(config),
  };
  const service = new Service(entities);
  return {
    client,
    /** The plain client of the ping path (core/store/client.ts, hotPathClient). */
    hot: hotPathClient(client),
    table,
    service,
    entities: service.entities,
    nextId: (entity: string) => nextId(client, table, entity),
    currentId: (entity: string) => currentId(client, table, entity),
  };
}

export type Store = ReturnType<typeof createStore>;
export type Entities = Store['entities'];
