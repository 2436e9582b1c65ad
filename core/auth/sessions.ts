import { newUlid } from '../ids.js';
import type { Ctx } from '../context.js';
import type { Deps } from '../deps.js';
import { HttpError, conflict, unauthorized } from '../http/errors.js';
import { acquireLock, lockOwner, releaseLock } from '../store/locks.js';
import { isConditionalFailure } from '../store/conditional.js';
import { createProjectItem } from '../store/projectLists.js';
import type { UserItem } from '../store/entities/user.js';
import type { WorkspaceItem } from '../store/entities/workspace.js';
import { withHashSlot, type HashSlot } from './hashSlots.js';
import { dummyHash, hashPassword, randomToken, sha256Hex, verifyPassword } from './secrets.js';
import { issueAccessToken } from './tokens.js';

const REFRESH_TTL_SECONDS = 30 * 24 * 3600;
const EMAIL_LOCK = 'email';
/** How long a sign-up may take between taking the email and writing the user. */
const SIGNUP_IN_FLIGHT_MS = 5 * 60_000;

export type TokenResponse = {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
};

/** A token pair and when its refresh token expires (epoch seconds): a refresh cookie lives as long. */
export type Grant = { tokens: TokenResponse; refreshExpiresAt: number };

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

export type SignupInput = { email: string; password: string; name?: string | undefined; workspaceName?: string | undefined };

/**
 * Creates the user (email unique through a lock item that also serves login lookups), a first
 * workspace owned by them with a default project, and a session.
 */
export async function signup(deps: Deps, input: SignupInput) {
  const { store } = deps;
  const now = deps.clock.now();
  const iso = now.toISOString();
  const email = normaliseEmail(input.email);
  const userId = await store.nextId('user');
  const taken = !(await acquireLock(store, EMAIL_LOCK, email, String(userId), now, async (owner, lockedAt) => {
    // A sign-up still hashing its password has the lock but no user yet: it is alive, not an orphan.
    if (now.getTime() - Date.parse(lockedAt) < SIGNUP_IN_FLIGHT_MS) return true;
    const existing = await store.entities.user.get({ userId: Number(owner) }).go({ consistent: true });
    return existing.data !== null;
  }));
  if (taken) throw conflict('An account with this email already exists', 'CONFLICT');
  try {
    const passwordHash = await withHashSlot(deps, (slot) => hashPassword(slot, input.password, deps.config.passwordHashLogN));
    const user = (await store.entities.user.create({ userId, email, name: input.name, passwordHash, sessionEpoch: 0, createdAt: iso, updatedAt: iso }).go()).data;
    const workspace = await createWorkspace(deps, user.userId, input.workspaceName ?? `${input.name ?? email.split('@')[0]}'s workspace`);
    const tokens = await startSession(deps, user);
    return { user: publicUser(user), workspace, ...tokens };
  } catch (err) {
    await releaseLock(store, EMAIL_LOCK, email, String(userId));
    throw err;
  }
}

export async function createWorkspace(deps: Deps, ownerId: number, name: string): Promise<WorkspaceItem> {
  const { store } = deps;
  const iso = deps.clock.now().toISOString();
  const workspaceId = await store.nextId('workspace');
  const workspace = (await store.entities.workspace.create({ workspaceId, name, plan: deps.config.defaultPlan, noStatusComponents: true, createdAt: iso, updatedAt: iso }).go())
    .data;
  await store.entities.membership.create({ workspaceId, userId: ownerId, role: 'OWNER', createdAt: iso, updatedAt: iso }).go();
  const projectId = await store.nextId('project');
  await createProjectItem(store, { projectId, workspaceId, name: 'Default', createdAt: iso, updatedAt: iso });
  return workspace;
}

export const publicUser = (user: UserItem) => ({
  id: user.userId,
  email: user.email,
  name: user.name ?? null,
  createdAt: user.createdAt,
});

/** The one view of a workspace (signup, /me; identity's detail adds limits and role). */
export const toWorkspace = (w: WorkspaceItem) => ({
  id: w.workspaceId,
  name: w.name,
  plan: w.plan,
  createdAt: w.createdAt,
  updatedAt: w.updatedAt,
});

export async function findUserByEmail(deps: Deps, email: string): Promise<UserItem | null> {
  const owner = await lockOwner(deps.store, EMAIL_LOCK, normaliseEmail(email));
  if (!owner) return null;
  return (await deps.store.entities.user.get({ userId: Number(owner) }).go({ consistent: true })).data;
}

/** OAuth password grant. Unknown email and wrong password answer the same. */
export async function passwordGrant(deps: Deps, email: string, password: string): Promise<Grant> {
  const logN = deps.config.passwordHashLogN;
  // The slot is taken before the lookup, so a busy process refuses an unknown e-mail and a known one alike.
  const user = await withHashSlot(deps, async (slot) => {
    const found = await findUserByEmail(deps, email);
    // An unknown e-mail still pays one scrypt at the configured cost: the answer takes as long.
    const verdict = await verifyPassword(slot, password, found?.passwordHash ?? (await dummyHash(slot, logN)), logN);
    if (!found || !verdict.ok) throw new HttpError('INVALID_GRANT', 'Invalid email or password');
    if (verdict.stale) await rehash(deps, slot, found, password);
    return found;
  });
  return startGrant(deps, user);
}

/** Raises an old hash to the configured cost; a concurrent password change wins (its hash stays). */
async function rehash(deps: Deps, slot: HashSlot, user: UserItem, password: string): Promise<void> {
  const passwordHash = await hashPassword(slot, password, deps.config.passwordHashLogN);
  try {
    await deps.store.entities.user
      .patch({ userId: user.userId })
      .set({ passwordHash })
      .where((attr, op) => op.eq(attr.passwordHash, user.passwordHash))
      .go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

export async function startSession(deps: Deps, user: UserItem): Promise<TokenResponse> {
  return (await startGrant(deps, user)).tokens;
}

async function startGrant(deps: Deps, user: UserItem): Promise<Grant> {
  const now = deps.clock.now();
  const familyId = newUlid(now.getTime());
  const expiresAt = Math.floor(now.getTime() / 1000) + REFRESH_TTL_SECONDS;
  await deps.store.entities.refreshFamily.create({ familyId, userId: user.userId, createdAt: now.toISOString(), expiresAt }).go();
  return issuePair(deps, user, familyId, now, expiresAt);
}

async function issuePair(deps: Deps, user: UserItem, familyId: string, now: Date, familyExpiresAt: number): Promise<Grant> {
  const refresh = randomToken();
  // A rotated token never outlives its family (whose item TTL may delete first).
  const refreshExpiresAt = Math.min(Math.floor(now.getTime() / 1000) + REFRESH_TTL_SECONDS, familyExpiresAt);
  await deps.store.entities.refreshToken
    .create({
      tokenHash: sha256Hex(refresh),
      familyId,
      userId: user.userId,
      sessionEpoch: user.sessionEpoch,
      createdAt: now.toISOString(),
      expiresAt: refreshExpiresAt,
    })
    .go();
  const tokens: TokenResponse = {
    access_token: await issueAccessToken(deps, { userId: user.userId, email: user.email, epoch: user.sessionEpoch, familyId }, now),
    token_type: 'Bearer',
    expires_in: deps.config.accessTokenTtlSeconds,
    refresh_token: refresh,
  };
  return { tokens, refreshExpiresAt };
}

/**
 * Refresh-token rotation: each token works once. Presenting a spent token means it was copied,
 * so the whole family is revoked (RFC 6819 5.2.2.3) and the caller gets 401.
 */
export async function refreshGrant(deps: Deps, refreshToken: string): Promise<Grant> {
  const { store } = deps;
  const now = deps.clock.now();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const invalid = () => new HttpError('INVALID_GRANT', 'Invalid refresh token');
  const token = (await store.entities.refreshToken.get({ tokenHash: sha256Hex(refreshToken) }).go({ consistent: true })).data;
  if (!token || token.expiresAt <= nowSeconds) throw invalid();
  // Both reads at once: a dashboard's reload waits for this answer before it can ask for anything.
  const [familyRead, userRead] = await Promise.all([
    store.entities.refreshFamily.get({ familyId: token.familyId }).go({ consistent: true }),
    store.entities.user.get({ userId: token.userId }).go({ consistent: true }),
  ]);
  const family = familyRead.data;
  // TTL deletes lazily (and never locally): an expired family is over whether or not it is gone.
  if (!family || family.revokedAt || family.expiresAt <= nowSeconds) throw invalid();
  if (token.spentAt) {
    await revokeFamily(deps, token.familyId);
    throw invalid();
  }
  const user = userRead.data;
  if (!user || user.sessionEpoch !== token.sessionEpoch) throw invalid();
  // Spending the token and writing its successor go at once: if the spend loses to another request,
  // the family is revoked below, and the successor written meanwhile dies with it.
  const [spent, pair] = await Promise.allSettled([
    store.entities.refreshToken
      .patch({ tokenHash: token.tokenHash })
      .set({ spentAt: now.toISOString() })
      .where((attr, op) => op.notExists(attr.spentAt))
      .go(),
    issuePair(deps, user, token.familyId, now, family.expiresAt),
  ]);
  if (spent.status === 'rejected') {
    if (!isConditionalFailure(spent.reason)) throw spent.reason;
    // Another request spent it a moment ago: a replay, treated as theft.
    await revokeFamily(deps, token.familyId);
    throw invalid();
  }
  if (pair.status === 'rejected') throw pair.reason;
  return pair.value;
}

/** A family already gone (its TTL passed) is as revoked as it gets: not an error. */
async function revokeFamily(deps: Deps, familyId: string): Promise<void> {
  try {
    await deps.store.entities.refreshFamily.patch({ familyId }).set({ revokedAt: deps.clock.now().toISOString() }).go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

/**
 * Ends the access tokens of one sign-in: remembered on the user item until the last of them has
 * expired, entries older than that pruned in the same atomic set update.
 */
async function endSessionAccess(deps: Deps, userId: number, familyId: string): Promise<void> {
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  const user = (await deps.store.entities.user.get({ userId }).go({ consistent: true })).data;
  const stale = (user?.endedSessions ?? []).filter((entry) => Number(entry.split(':')[0]) + deps.config.accessTokenTtlSeconds < nowSeconds);
  let update = deps.store.entities.user.update({ userId }).add({ endedSessions: [`${nowSeconds}:${familyId}`] });
  if (stale.length > 0) update = update.delete({ endedSessions: stale });
  await update.go();
}

export type LogoutRequest = {
  /** The refresh tokens presented (the body's, the dashboard's cookie): their sessions end. */
  refreshTokens: string[];
  /** End the session of the access token that authenticated the request (a cookie-signed-in browser). */
  current: boolean;
  everywhere: boolean;
};

/**
 * Logout ends the presented sessions' families; `everywhere` (or a password change, or a logout
 * naming no session) ends them all. An API key has no session to end: nothing happens.
 */
export async function logout(ctx: Ctx, request: LogoutRequest): Promise<void> {
  const { deps, actor } = ctx;
  if (actor.kind !== 'user') return;
  const userId = actor.userId;
  const families = new Set<string>();
  for (const refreshToken of request.refreshTokens) {
    const token = (await deps.store.entities.refreshToken.get({ tokenHash: sha256Hex(refreshToken) }).go({ consistent: true })).data;
    if (token && token.userId === userId) families.add(token.familyId);
  }
  // The access token's family comes from a token this server signed for this user: it is theirs.
  if (request.current && actor.sessionId) families.add(actor.sessionId);
  for (const familyId of families) {
    await revokeFamily(deps, familyId);
    await endSessionAccess(deps, userId, familyId);
    // Streams opened with this sign-in's access tokens end with it; the user's other sessions keep theirs.
    await deps.broadcaster.closeSessionStreams(userId, familyId);
  }
  const namedNone = request.refreshTokens.length === 0 && !(request.current && actor.sessionId);
  if (request.everywhere || namedNone) await bumpSessionEpoch(deps, userId);
}

export async function bumpSessionEpoch(deps: Deps, userId: number): Promise<void> {
  await deps.store.entities.user.update({ userId }).add({ sessionEpoch: 1 }).set({ updatedAt: deps.clock.now().toISOString() }).go();
  await deps.broadcaster.closeUserStreams(userId);
}

export function requireUser(user: UserItem | null): UserItem {
  if (!user) throw unauthorized('Unknown user');
  return user;
}
