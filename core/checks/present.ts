import type { Config } from '../config.js';
import type { Actor } from '../context.js';
import { roleAtLeast, type Role } from '../auth/roles.js';
import type { CheckItem } from '../store/entities/check.js';
import { timingView } from './jobRules.js';
import { badgeKeyWith } from './badge.js';
import { readOutboundConfig, toOutboundView, type OutboundConfigView } from './outboundSchema.js';
import { DEFAULT_BADGE_LABEL, type CheckV1, type DashboardCheck, type JobV1 } from './schema.js';

export const pingUrlOf = (config: Config, token: string): string => `${config.publicUrl}/api/signals/ping/${token}`;
/**
 * A ping token lets its holder send `/fail` pings and raise incidents: a read_only key is for
 * reading, so it never sees one (Healthchecks.io does the same for its read-only keys).
 */
export const seesPingToken = (actor: Actor): boolean => actor.kind === 'user' || actor.permission === 'read_write';

/** The badge's public address, by its unguessable key (checks/badge.ts), never by the sequential id. */
export const badgeUrlOf = (config: Config, badgeKey: string): string => `${config.publicUrl}/api/checks/${badgeKey}/badge`;

function outboundView(config: Config, check: CheckItem, role: Role): OutboundConfigView | null {
  if (check.checkMode !== 'OUTBOUND') return null;
  const stored = readOutboundConfig(check.outbound);
  return stored ? toOutboundView(stored, config.homeRegion, roleAtLeast(role, 'MEMBER')) : null;
}

/** The role an API key acts with (`auth/authorize.ts`). */
export const keyRole = (actor: Actor): Role => (actor.kind === 'apiKey' && actor.permission === 'read_only' ? 'VIEWER' : 'MEMBER');

/**
 * `role`: the caller's role in the check's workspace (what it may see of the probe headers);
 * `badgeSecret`: the install secret the badge key is made with.
 */
export function toDashboardCheck(config: Config, check: CheckItem, role: Role, badgeSecret: Uint8Array): DashboardCheck {
  return {
    id: check.checkId,
    token: check.token,
    workspaceId: check.workspaceId,
    name: check.name,
    slug: check.slug ?? null,
    projectId: check.projectId ?? null,
    dependencyId: check.dependencyId ?? null,
    dependencyIds: check.dependencyIds ?? [],
    checkMode: check.checkMode,
    checkType: check.checkType,
    ...timingView(check),
    graceSeconds: check.graceSeconds,
    muteNotifications: check.muteNotifications,
    downSeverity: check.downSeverity,
    lateSeverity: check.lateSeverity,
    status: check.status,
    paused: check.status === 'PAUSED',
    deploymentPaused: check.deploymentPaused === true,
    lastPingAt: check.lastPingAt ?? null,
    nextDueAt: check.nextDueAt ?? null,
    outbound: outboundView(config, check, role),
    pingUrl: pingUrlOf(config, check.token),
    badgeUrl: badgeUrlOf(config, badgeKeyWith(badgeSecret, check.checkId)),
    badgeLabel: check.badgeLabel ?? DEFAULT_BADGE_LABEL,
    createdAt: check.createdAt,
    updatedAt: check.updatedAt,
  };
}

/** Spec "Check (Integration API response)" field order; jobs add their ping fields. */
function baseV1<P, T, C>(check: CheckItem, projectId: P, checkType: T, config: C) {
  return {
    id: check.checkId,
    slug: check.slug ?? null,
    name: check.name,
    projectId,
    checkType,
    intervalSeconds: check.intervalSeconds,
    graceSeconds: check.graceSeconds,
    muteNotifications: check.muteNotifications,
    downSeverity: check.downSeverity,
    lateSeverity: check.lateSeverity,
    paused: check.status === 'PAUSED',
    status: check.status,
    config,
    createdAt: check.createdAt,
    updatedAt: check.updatedAt,
  };
}

/**
 * Integration API views: every check has a project (one made under a dependency gets its
 * workspace's first project, `associations.ts` homeProjectOf); 0 only for an item stored before that.
 */
export function toCheckV1(config: Config, check: CheckItem, actor: Actor): CheckV1 {
  return baseV1(check, check.projectId ?? 0, check.checkType, outboundView(config, check, keyRole(actor)));
}

export function toJobV1(config: Config, check: CheckItem, actor: Actor): JobV1 {
  const reveal = seesPingToken(actor);
  return {
    ...baseV1(check, check.projectId ?? 0, 'HEARTBEAT' as const, null),
    ...timingView(check),
    token: reveal ? check.token : null,
    pingUrl: reveal ? pingUrlOf(config, check.token) : null,
    lastPingAt: check.lastPingAt ?? null,
    nextDueAt: check.nextDueAt ?? null,
    description: check.description ?? null,
    tags: check.tags ?? [],
  };
}
