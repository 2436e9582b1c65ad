import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Ctx } from '../context.js';
import type { Deps } from '../deps.js';
import { unauthorized } from '../http/errors.js';
import { isConditionalFailure } from '../store/conditional.js';
import { requireCurrentSession } from './middleware.js';
import { randomToken, sha256Hex } from './secrets.js';
import type { AccessClaims } from './tokens.js';

/*
 * A stream ticket: a browser cannot set a header on a WebSocket, so the stream's credential
 * travels in the URL, where proxies, logs and history keep it. Rather than the access token, the
 * dashboard sends a ticket: asked for with the session (Bearer) a moment before connecting, good
 * for 30 s and for one connect. Stored by hash (a raw item, expired by the table's TTL), taken by
 * a conditional delete, so two connects with one ticket cannot both succeed.
 */

export const STREAM_TICKET_SECONDS = 30;

const keyOf = (ticket: string) => ({ pk: `streamTicket#${sha256Hex(ticket)}`, sk: 'ticket' });

/** A new ticket for the session that authenticated the request (an API key has none: 401). */
export async function issueStreamTicket(ctx: Ctx): Promise<{ ticket: string; expiresIn: number }> {
  const { deps, actor } = ctx;
  if (actor.kind !== 'user') throw unauthorized('Stream tickets are for session users');
  const user = (await deps.store.entities.user.get({ userId: actor.userId }).go({ consistent: true })).data;
  if (!user) throw unauthorized('Unknown user');
  const ticket = randomToken(32);
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  await deps.store.client.send(
    new PutCommand({
      TableName: deps.store.table,
      Item: {
        ...keyOf(ticket),
        userId: user.userId,
        email: user.email,
        // The session as it is now: a logout or password change before the connect voids the ticket too.
        epoch: user.sessionEpoch,
        ...(actor.sessionId ? { familyId: actor.sessionId } : {}),
        expiresAt: nowSeconds + STREAM_TICKET_SECONDS,
      },
    }),
  );
  return { ticket, expiresIn: STREAM_TICKET_SECONDS };
}

/**
 * Takes the ticket (it never works again, whatever follows) and answers the session it stands for,
 * still current; unknown, spent, expired (TTL deletes lazily, so the instant is checked) or
 * revoked: 401.
 */
export async function redeemStreamTicket(deps: Deps, ticket: string): Promise<AccessClaims> {
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  let taken: Record<string, unknown> | undefined;
  try {
    taken = (
      await deps.store.client.send(
        new DeleteCommand({
          TableName: deps.store.table,
          Key: keyOf(ticket),
          ConditionExpression: 'attribute_exists(pk) AND expiresAt > :now',
          ExpressionAttributeValues: { ':now': nowSeconds },
          ReturnValues: 'ALL_OLD',
        }),
      )
    ).Attributes;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
  if (!taken || typeof taken.userId !== 'number' || typeof taken.email !== 'string' || typeof taken.epoch !== 'number') throw unauthorized('Invalid or expired stream ticket');
  const claims: AccessClaims = { userId: taken.userId, email: taken.email, epoch: taken.epoch, familyId: typeof taken.familyId === 'string' ? taken.familyId : undefined };
  await requireCurrentSession(deps, claims);
  return claims;
}
