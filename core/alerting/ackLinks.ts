import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { randomToken, sha256Hex } from '../auth/secrets.js';
import { jwtKey } from '../auth/tokens.js';
import type { Deps } from '../deps.js';
import { HttpError, unauthorized } from '../http/errors.js';
import type { AlertChannelItem } from '../store/entities/alertChannel.js';
import { storeMemo } from '../store/storeMemo.js';
import type { IncidentItem } from '../store/entities/incident.js';
import type { IncidentAlertEvent } from './alertContent.js';
import type { ChannelMessage } from './channelsDelivery.js';

/**
 * Acknowledge and resolve from the alert itself (docs/guide/alerting.md "Acknowledge from the
 * message"). A link is an HS256 JWT (jose) under the install's signing secret (core/auth/tokens.ts),
 * with its own audience so no session or status-page token can pass for one, naming one incident,
 * one action and the recipient it was sent to, and expiring `VIGIL_ACK_LINK_TTL_SECONDS` after
 * it was signed (when its alert was composed, or up to a minute before: signAckLink). Nothing is
 * stored per link: the signature is the capability, and the incident's own state makes a link
 * void (resolved) or a repeat harmless (already acknowledged).
 * An SMS has 160 characters, and a signed link takes some 250: its links are short ones instead,
 * a random 128-bit id whose hash is stored with the same claims and expiry (entities/ackShortLink.ts),
 * answered by the same routes.
 */
export type AckLinkAction = 'acknowledge' | 'resolve';

/** Who a link was sent to: a stored channel, or a person paged by an escalation step (mailed directly). */
export type LinkRecipient = { kind: 'channel'; channelId: number } | { kind: 'person'; email: string };

export type AckLinkClaims = { incidentId: number; action: AckLinkAction; recipient: LinkRecipient };

const ISSUER = 'vigil';
const AUDIENCE = 'vigil-incident-link';
/** Short claim values: the link goes into SMS and chat buttons, where every character shows. */
const ACTION_CODES: Record<AckLinkAction, string> = { acknowledge: 'ack', resolve: 'res' };
const ACTIONS_BY_CODE = new Map(Object.entries(ACTION_CODES).map(([action, code]) => [code, action as AckLinkAction]));

/** A user paged by a step is mailed through a channel of id 0 (core/escalation/recipients.ts userChannel). */
export const recipientOf = (channel: Pick<AlertChannelItem, 'channelId' | 'email'>): LinkRecipient =>
  channel.channelId === 0 ? { kind: 'person', email: channel.email ?? '' } : { kind: 'channel', channelId: channel.channelId };

const encodeRecipient = (recipient: LinkRecipient): string => (recipient.kind === 'channel' ? `c:${recipient.channelId}` : `p:${recipient.email}`);

function decodeRecipient(value: unknown): LinkRecipient | null {
  if (typeof value !== 'string') return null;
  if (value.startsWith('p:') && value.length > 2) return { kind: 'person', email: value.slice(2) };
  const channelId = value.startsWith('c:') ? Number(value.slice(2)) : Number.NaN;
  return Number.isSafeInteger(channelId) && channelId > 0 ? { kind: 'channel', channelId } : null;
}

/**
 * Links signed in the last minute, per install (its store) by their claims, in a bounded
 * storeMemo (core/store/storeMemo.ts). An incident's alerts to one recipient come in bursts: the opening and, a grace period later, the raise of a late job
 * that goes down, each with the same two links. Signed again, each link was an HMAC signature, a
 * trip to the thread pool (WebCrypto): four a flipping check in a mass outage. A link taken from
 * here is the one signed up to a minute before, so it stops acting up to a minute sooner than a
 * new one would; with `VIGIL_ACK_LINK_TTL_SECONDS` at least 300, it always acts for four minutes.
 */
const REUSE_MS = 60_000;
const recentLinks = storeMemo<string, { token: string; signedAt: number }>(10_000);

export async function signAckLink(deps: Deps, claims: AckLinkClaims, now: Date): Promise<string> {
  const recipient = encodeRecipient(claims.recipient);
  const key = `${claims.incidentId} ${ACTION_CODES[claims.action]} ${recipient}`;
  const at = now.getTime();
  const known = recentLinks.get(deps.store, key);
  if (known && known.signedAt <= at && at - known.signedAt < REUSE_MS) return known.token;
  const issuedAt = Math.floor(at / 1000);
  const token = await new SignJWT({ act: ACTION_CODES[claims.action], rcp: recipient })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(String(claims.incidentId))
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + deps.config.ackLinkTtlSeconds)
    .sign(await jwtKey(deps.store, now));
  recentLinks.set(deps.store, key, { token, signedAt: at });
  return token;
}

/** 16 random bytes in base64url: 22 characters, never a compact JWS (which has dots). */
export const SHORT_LINK_ID = /^[A-Za-z0-9_-]{22}$/;

/** A short link with the claims a signed one carries, stored until it expires (the table's TTL). */
export async function storeShortAckLink(deps: Deps, claims: AckLinkClaims, now: Date): Promise<string> {
  const id = randomToken(16);
  await deps.store.entities.ackShortLink
    .create({
      idHash: sha256Hex(id),
      incidentId: claims.incidentId,
      action: claims.action,
      recipient: encodeRecipient(claims.recipient),
      createdAt: now.toISOString(),
      expiresAt: Math.floor(now.getTime() / 1000) + deps.config.ackLinkTtlSeconds,
    })
    .go();
  return id;
}

async function readShortAckLink(deps: Deps, id: string, now: Date): Promise<AckLinkClaims> {
  const item = (await deps.store.entities.ackShortLink.get({ idHash: sha256Hex(id) }).go({ consistent: true })).data;
  const recipient = decodeRecipient(item?.recipient);
  if (!item || !recipient) throw unauthorized('This link is not valid');
  // TTL deletion lags by up to days: the expiry is checked here, as a signed link's is.
  if (item.expiresAt <= Math.floor(now.getTime() / 1000)) throw new HttpError('TOKEN_EXPIRED', 'This link has expired; open the incident in Vigil instead');
  return { incidentId: item.incidentId, action: item.action, recipient };
}

/** The page behind a link: GET shows it, POST acts (core/alerting/ackLinkRoutes.ts). */
export const ackLinkUrl = (deps: Deps, token: string): string => `${deps.config.publicUrl}/api/ack/${token}`;

/** Expired: 401 TOKEN_EXPIRED; tampered, `alg: none`, another audience or a malformed claim: 401. Never a 5xx. */
export async function verifyAckLink(deps: Deps, token: string, now: Date): Promise<AckLinkClaims> {
  if (SHORT_LINK_ID.test(token)) return readShortAckLink(deps, token, now);
  const secret = await jwtKey(deps.store, now);
  try {
    const { payload } = await jwtVerify(token, secret, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE, currentDate: now });
    const incidentId = Number(payload.sub);
    const action = typeof payload.act === 'string' ? ACTIONS_BY_CODE.get(payload.act) : undefined;
    const recipient = decodeRecipient(payload.rcp);
    if (!Number.isSafeInteger(incidentId) || incidentId < 1 || !action || !recipient) throw unauthorized('This link is not valid');
    return { incidentId, action, recipient };
  } catch (err) {
    if (err instanceof HttpError) throw err;
    if (err instanceof joseErrors.JWTExpired) throw new HttpError('TOKEN_EXPIRED', 'This link has expired; open the incident in Vigil instead');
    throw unauthorized('This link is not valid');
  }
}

/** What each alert offers: an open incident can be acknowledged and resolved; an acknowledged one resolved. */
const ACTIONS_BY_EVENT: Record<IncidentAlertEvent, readonly AckLinkAction[]> = {
  'incident.opened': ['acknowledge', 'resolve'],
  'incident.escalated': ['acknowledge', 'resolve'],
  'incident.severity_changed': ['acknowledge', 'resolve'],
  'incident.acknowledged': ['resolve'],
  'incident.resolved': [],
};

/**
 * The links one alert carries to one recipient (`ChannelMessage.actions`), from the incident as
 * stored when the alert is composed: none once it is resolved, and no acknowledge link once it is
 * acknowledged (a late copy of the opening alert). Short stored links for SMS, signed ones elsewhere.
 */
export async function alertActions(
  deps: Deps,
  incident: Pick<IncidentItem, 'incidentId' | 'state' | 'acknowledgedAt'>,
  event: IncidentAlertEvent,
  channel: Pick<AlertChannelItem, 'channelId' | 'email'> & { type?: AlertChannelItem['type'] },
  now: Date,
): Promise<ChannelMessage['actions']> {
  if (incident.state === 'RESOLVED') return undefined;
  const offered = ACTIONS_BY_EVENT[event].filter((action) => action !== 'acknowledge' || incident.acknowledgedAt === undefined);
  if (offered.length === 0) return undefined;
  const recipient = recipientOf(channel);
  const make = channel.type === 'SMS' ? storeShortAckLink : signAckLink;
  const url = async (action: AckLinkAction) => ackLinkUrl(deps, await make(deps, { incidentId: incident.incidentId, action, recipient }, now));
  // Both links at once: each signature is a trip to the thread pool (WebCrypto's HMAC), each short
  // link a store write, and one after the other an alert waited for two of them.
  const [acknowledgeUrl, resolveUrl] = await Promise.all([
    offered.includes('acknowledge') ? url('acknowledge') : undefined,
    offered.includes('resolve') ? url('resolve') : undefined,
  ]);
  return { ...(acknowledgeUrl !== undefined ? { acknowledgeUrl } : {}), ...(resolveUrl !== undefined ? { resolveUrl } : {}) };
}
