import type { Ctx } from '../context.js';
import type { Deps } from '../deps.js';
import { unauthorized } from '../http/errors.js';
import { ALL_TOPICS, type Subscription } from '../ports/index.js';
import { loadCheckByToken } from './history.js';
import { checkTopic, workspaceChannel } from './streamEvents.js';

/**
 * What one signal-stream connection may hear, decided once at connect for both transports (SSE
 * and WebSocket): the user's workspaces as they are now, or the one check named by `token`.
 * `sessionEpoch` and `workspaceIds` are what a later re-check compares against.
 */
export type SignalScope = {
  userId: number;
  sessionEpoch: number;
  /** The sign-in whose access token opened the stream (when the token names one). */
  sessionId: string | undefined;
  workspaceIds: number[];
  checkId: number | undefined;
  subscriptions: Subscription[];
};

export async function resolveSignalScope(ctx: Ctx, token: string | undefined): Promise<SignalScope> {
  const { deps, actor } = ctx;
  if (actor.kind !== 'user') throw unauthorized('The signal stream needs a session token');
  const user = (await deps.store.entities.user.get({ userId: actor.userId }).go({ consistent: true })).data;
  if (!user) throw unauthorized('Unknown user');
  if (token !== undefined) {
    // loadCheckByToken answers 404 for a check the user cannot see, as the history route does.
    const check = await loadCheckByToken(ctx, token);
    return {
      userId: user.userId,
      sessionEpoch: user.sessionEpoch,
      sessionId: actor.sessionId,
      workspaceIds: [check.workspaceId],
      checkId: check.checkId,
      subscriptions: signalSubscriptions([check.workspaceId], check.checkId),
    };
  }
  const workspaceIds = await workspacesOf(deps, user.userId);
  return {
    userId: user.userId,
    sessionEpoch: user.sessionEpoch,
    sessionId: actor.sessionId,
    workspaceIds,
    checkId: undefined,
    subscriptions: signalSubscriptions(workspaceIds, undefined),
  };
}

/** Every check of the given workspaces, or (with `checkId`) that one check of its workspace. */
export const signalSubscriptions = (workspaceIds: readonly number[], checkId: number | undefined): Subscription[] =>
  workspaceIds.map((workspaceId) => ({ channel: workspaceChannel(workspaceId), topic: checkId === undefined ? ALL_TOPICS : checkTopic(checkId) }));

/**
 * Whether the access a scope was granted still holds: the session was not revoked (logout
 * of that sign-in or everywhere, password change) and every workspace it listens to still counts the user as member.
 * Long-lived streams call this on each keep-alive, as a backstop to `closeUserStreams`.
 */
export async function signalScopeStillHolds(deps: Deps, scope: SignalScope): Promise<boolean> {
  const user = (await deps.store.entities.user.get({ userId: scope.userId }).go({ consistent: true })).data;
  if (!user || user.sessionEpoch !== scope.sessionEpoch) return false;
  const sessionId = scope.sessionId;
  if (sessionId !== undefined && (user.endedSessions ?? []).some((entry) => entry.endsWith(`:${sessionId}`))) return false;
  const current = new Set(await workspacesOf(deps, scope.userId));
  return scope.workspaceIds.every((workspaceId) => current.has(workspaceId));
}

async function workspacesOf(deps: Deps, userId: number): Promise<number[]> {
  const memberships = await deps.store.entities.membership.query.byUser({ userId }).go({ pages: 'all' });
  return memberships.data.map((m) => m.workspaceId);
}
