import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { OUTBOX_ATTRIBUTES } from '../outbox.js';

export const CHECK_STATUSES = ['NEW', 'OK', 'LATE', 'DOWN', 'PAUSED', 'RESUMED'] as const;
export const CHECK_TYPES = ['HTTP', 'HEARTBEAT', 'DNS', 'TCP', 'SSL'] as const;
export const CHECK_MODES = ['INBOUND', 'OUTBOUND'] as const;
export const SEVERITIES = ['P1', 'P2', 'P3', 'P4'] as const;

/**
 * A check (a heartbeat job or an outbound HTTP check). Its primary key is the ping token, so the
 * ping path reaches it with one conditional update and no index read. Reads by id go through
 * `checkRef` (id -> token), which stays strongly consistent. The check sits in one index at most,
 * the due index, and a steady ping leaves it in none: the lists by project and workspace index the
 * refs instead, which a ping never writes (on AWS a projection-ALL index is written on every change
 * of its items).
 *
 * `dueAt`/`dueShard` are set only while a timing transition is pending (OK/RESUMED -> LATE at
 * nextDueAt, LATE -> DOWN at nextDueAt + grace). The `byDue` entry (the gsi2 keys) is written by
 * every write that sets them except a steady ping, whose signal carries the due time instead as a
 * wake entry (core/sweep/wakes.ts); the sweep drops an entry a wake superseded.
 */
export const createCheckEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'check', version: '1', service: 'vigil' },
      attributes: {
        token: { type: 'string', required: true },
        checkId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        projectId: { type: 'number' },
        dependencyId: { type: 'number' },
        dependencyIds: { type: 'list', items: { type: 'number' } },
        name: { type: 'string', required: true },
        /** The public badge's left-hand text (the name stays private); absent reads "status". */
        badgeLabel: { type: 'string' },
        slug: { type: 'string' },
        /** Brought by an import (core/imports): the source's description and tags, shown on the job. */
        description: { type: 'string' },
        tags: { type: 'list', items: { type: 'string' } },
        checkMode: { type: CHECK_MODES, required: true },
        checkType: { type: CHECK_TYPES, required: true },
        intervalSeconds: { type: 'number', required: true },
        graceSeconds: { type: 'number', required: true },
        /**
         * A heartbeat job's rules (core/checks/jobRules.ts): cron schedule and time zone, run
         * duration bounds, shortest interval between successes; one canonical JSON string so the
         * ping's update pins them in one comparison. Absent: none (interval timing only).
         */
        jobRules: { type: 'string' },
        /** When the current too-frequent episode began (one alert per episode); removed by the next success on time. */
        tooFrequentSince: { type: 'string' },
        muteNotifications: { type: 'boolean', required: true },
        downSeverity: { type: SEVERITIES, required: true },
        lateSeverity: { type: SEVERITIES, required: true },
        status: { type: CHECK_STATUSES, required: true },
        /** Set while a deployment window holds the check PAUSED (spec: deploymentPaused). */
        deploymentPaused: { type: 'boolean' },
        /**
         * The outbound HTTP probe configuration. `any` because a map with no declared properties
         * keeps none of them (ElectroDB drops undeclared keys) and customHeaders has free keys; it
         * is validated on write and re-parsed on read by core/checks/outboundSchema.ts.
         */
        outbound: { type: 'any' },
        lastPingAt: { type: 'string' },
        /**
         * The signal whose wake entry holds this check's `dueAt` (written by the ping that set it;
         * its key is checkId, lastPingAt and this id): the sweep reads it to know the wake landed.
         */
        wakeSignalId: { type: 'string' },
        nextDueAt: { type: 'string' },
        /** When the last signal was stored. */
        lastSignalAt: { type: 'string' },
        /** The last SUCCESS and FAIL pings: the 1-second dedup compares a ping with the last of its own kind only. */
        lastSuccessAt: { type: 'string' },
        lastFailAt: { type: 'string' },
        /** The last `/log` ping (logs are never deduplicated; kept for the record). */
        lastLogAt: { type: 'string' },
        /** A `/start` ping's time; the next SUCCESS or FAIL reports durationMs from it. */
        startedAt: { type: 'string' },
        /** Per-token ping rate limit, counted inside the ping's own conditional update. */
        pingWindowStart: { type: 'number' },
        pingWindowCount: { type: 'number' },
        dueShard: { type: 'string' },
        dueAt: { type: 'string' },
        deletedAt: { type: 'string' },
        /** Outbound status state (core/probes/rounds.ts): the last round folded in and the streaks. */
        probeRoundAt: { type: 'string' },
        probeFailStreak: { type: 'number' },
        probeOkStreak: { type: 'number' },
        probeStreakStatus: { type: CHECK_STATUSES },
        /** Cooldowns of the latency and SSL-expiry warnings (one per check per hour). */
        latencyWarnedAt: { type: 'string' },
        sslWarnedAt: { type: 'string' },
        /** Messages its status changes and warnings owe, until relayed (core/outbox). */
        ...OUTBOX_ATTRIBUTES,
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byToken: { pk: { field: 'pk', composite: ['token'] }, sk: { field: 'sk', composite: [] } },
        byDue: {
          index: 'gsi2',
          pk: { field: 'gsi2pk', composite: ['dueShard'] },
          sk: { field: 'gsi2sk', composite: ['dueAt'] },
        },
      },
    },
    config,
  );

/** An id as the list indexes sort it: 16 digits, zero-padded (ids stay below 10^16). */
export const listOrderOf = (checkId: number): string => String(checkId).padStart(16, '0');

/**
 * id -> token, written with the check; also what the lists of a project's or a workspace's checks
 * query (they then read the checks by token). `projectId` follows the check's.
 */
export const createCheckRefEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'checkRef', version: '1', service: 'vigil' },
      attributes: {
        checkId: { type: 'number', required: true },
        token: { type: 'string', required: true },
        workspaceId: { type: 'number', required: true },
        projectId: { type: 'number' },
        /** Lets a list of one mode (v1 jobs or checks) pick its page from refs alone. */
        checkMode: { type: CHECK_MODES },
        /**
         * The id zero-padded to 16 digits, derived from checkId on every write: the list indexes
         * sort by it, so their text order is the id order and a page is a key range
         * (core/store/checkLists.ts).
         */
        listOrder: {
          type: 'string',
          watch: ['checkId'],
          set: (_value: unknown, item: { checkId?: number }) => (item.checkId === undefined ? undefined : listOrderOf(item.checkId)),
        },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['checkId'] }, sk: { field: 'sk', composite: [] } },
        byProject: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['projectId'] },
          sk: { field: 'gsi1sk', composite: ['listOrder'] },
        },
        byWorkspace: {
          index: 'gsi3',
          pk: { field: 'gsi3pk', composite: ['workspaceId'] },
          sk: { field: 'gsi3sk', composite: ['listOrder'] },
        },
      },
    },
    config,
  );

export type CheckItem = EntityItem<ReturnType<typeof createCheckEntity>>;
export type CheckRefItem = EntityItem<ReturnType<typeof createCheckRefEntity>>;
