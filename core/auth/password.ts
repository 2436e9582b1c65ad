import type { Ctx } from '../context.js';
import { HttpError, badRequest, conflict } from '../http/errors.js';
import { isConditionalFailure } from '../store/conditional.js';
import { withHashSlot } from './hashSlots.js';
import { hashPassword, verifyPassword } from './secrets.js';
import { requireUser, startSession, type TokenResponse } from './sessions.js';

/**
 * Changes the password and revokes every session of the user (refresh families and access
 * tokens both carry the session epoch, which is bumped here), then opens a fresh session so the
 * caller stays signed in on this device only.
 */
export async function changePassword(ctx: Ctx, input: { currentPassword: string; newPassword: string }): Promise<TokenResponse> {
  const { deps, actor } = ctx;
  if (actor.kind !== 'user') throw badRequest('Session required');
  const userId = actor.userId;
  const { user: users } = deps.store.entities;
  const user = requireUser((await users.get({ userId }).go({ consistent: true })).data);
  const logN = deps.config.passwordHashLogN;
  const passwordHash = await withHashSlot(deps, async (slot) => {
    if (!(await verifyPassword(slot, input.currentPassword, user.passwordHash, logN)).ok) {
      throw new HttpError('BAD_REQUEST', 'Current password is incorrect', [{ path: 'currentPassword', message: 'Incorrect password' }]);
    }
    if (input.currentPassword === input.newPassword) {
      throw new HttpError('VALIDATION_ERROR', 'The new password must differ from the current one', [{ path: 'newPassword', message: 'Same as the current password' }]);
    }
    return hashPassword(slot, input.newPassword, logN);
  });
  let updated;
  try {
    updated = await users
      .patch({ userId })
      .set({ passwordHash, updatedAt: deps.clock.now().toISOString() })
      .add({ sessionEpoch: 1 })
      // A concurrent change of the same password must not be silently overwritten.
      .where((attr, op) => op.eq(attr.passwordHash, user.passwordHash))
      .go({ response: 'all_new' });
  } catch (err) {
    if (isConditionalFailure(err)) throw conflict('The password was changed by another request');
    throw err;
  }
  await deps.broadcaster.closeUserStreams(userId);
  return startSession(deps, { ...user, ...updated.data });
}
