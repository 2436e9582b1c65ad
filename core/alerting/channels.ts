import type { Ctx } from '../context.js';
import { authorize, manageRole } from '../auth/authorize.js';
import { roleAtLeast, type Role } from '../auth/roles.js';
import { maskUrl } from '../auth/mask.js';
import type { Deps } from '../deps.js';
import { badRequest, notFound } from '../http/errors.js';
import { zodDetails } from '../http/router.js';
import { classifyAddress, parseTargetUrl } from '../outbound/index.js';
import type { AlertChannelItem, AlertChannelType } from '../store/entities/alertChannel.js';
import { undoIfFails } from '../store/conditional.js';
import { refuseIfTargeted } from '../escalation/policyTargets.js';
import { CHANNEL_CONFIGS, type AlertChannelCreate, type AlertChannelUpdate } from './channelsSchema.js';
import { generateWebhookSecret } from './webhookSignature.js';
import { consumeRateLimit, enforce } from '../http/rateLimit.js';
import { awaitingConfirmation, CONFIRMATION_RESEND_LIMIT, mailConfirmation, newConfirmation } from './emailConfirm.js';
import { HTTP_CHANNELS, httpChannel, isHttpChannelType } from './channels/index.js';
import type { StoredDestination } from './channels/types.js';
import { viewPagerDuty } from './channels/pagerduty.js';
import { viewPushover } from './channels/pushover.js';
import { viewSms } from './channels/sms.js';

type Destination = { email?: string; webhookUrl?: string; url?: string } & StoredDestination;

/**
 * `role`: the caller's. A Slack webhook URL is a credential (its path), and so is many a webhook
 * URL (a token in its path or query): both are whole only from ADMIN up, who manage channels, as
 * are the provider keys (Pushover, PagerDuty) and an SMS phone number.
 */
export function toAlertChannel(ch: AlertChannelItem, role: Role) {
  const whole = roleAtLeast(role, 'ADMIN');
  const webhookUrl = ch.webhookUrl ?? '';
  const url = ch.url ?? '';
  const config = isHttpChannelType(ch.type)
    ? HTTP_CHANNELS[ch.type].show(ch, whole)
    : ch.type === 'PUSHOVER'
      ? viewPushover(ch, whole)
      : ch.type === 'PAGERDUTY'
        ? viewPagerDuty(ch, whole)
        : ch.type === 'SMS'
          ? viewSms(ch, whole)
          : ch.type === 'EMAIL'
            ? { email: ch.email ?? '' }
            : ch.type === 'SLACK'
              ? { webhookUrl: whole ? webhookUrl : maskUrl(webhookUrl) }
              : { url: whole ? url : maskUrl(url), secretHint: `whsec_...${(ch.secret ?? '').slice(-4)}` };
  return {
    id: ch.channelId,
    workspaceId: ch.workspaceId,
    name: ch.name,
    type: ch.type,
    enabled: ch.enabled,
    disabledReason: ch.disabledReason ?? null,
    lastError: ch.lastError ?? null,
    lastErrorAt: ch.lastErrorAt ?? null,
    emailConfirmed: !awaitingConfirmation(ch),
    config,
    createdAt: ch.createdAt,
    updatedAt: ch.updatedAt,
  };
}

/**
 * Refuses at save time what can never be delivered: loopback names and literal non-public
 * addresses (names are judged again, after resolution, by the outbound guard on every send).
 */
function checkDestination(deps: Deps, type: AlertChannelType, config: unknown): void {
  for (const { path, url } of destinationsOf(type, config)) {
    const parsed = parseTargetUrl(url);
    let problem: string | undefined;
    if (!parsed.ok) problem = parsed.message;
    else if (parsed.target.host.kind === 'ip') {
      const verdict = classifyAddress(parsed.target.host.address, { allowLoopback: deps.config.probeAllowPrivate });
      if (verdict.blocked) problem = `address ${parsed.target.host.address} is not a public address`;
    }
    if (problem) throw badRequest(`Validation failed: ${path}: ${problem}`, [{ path, message: problem }]);
  }
}

/** `config` has passed its type's schema. */
function destinationsOf(type: AlertChannelType, config: unknown): { path: string; url: string }[] {
  if (isHttpChannelType(type)) return httpChannel(type).destinations(config);
  const destination = config as Destination;
  if (type === 'SLACK' && destination.webhookUrl !== undefined) return [{ path: 'config.webhookUrl', url: destination.webhookUrl }];
  if (type === 'WEBHOOK' && destination.url !== undefined) return [{ path: 'config.url', url: destination.url }];
  if ((type === 'PUSHOVER' || type === 'PAGERDUTY') && destination.apiBaseUrl !== undefined) return [{ path: 'config.apiBaseUrl', url: destination.apiBaseUrl }];
  return [];
}

/**
 * The attributes a config is stored as: the older types' config is stored as it is. An optional
 * field is named even when absent (undefined), so a PATCH that leaves it out removes it.
 */
function storedOf(type: AlertChannelType, config: unknown): Destination {
  if (isHttpChannelType(type)) return httpChannel(type).store(config);
  if (type === 'PUSHOVER' || type === 'PAGERDUTY') return { apiBaseUrl: undefined, ...(config as Destination) };
  return config as Destination;
}

export async function createAlertChannel(ctx: Ctx, input: AlertChannelCreate & { workspaceId: number }) {
  await authorize(ctx.deps, ctx.actor, input.workspaceId, manageRole(ctx.actor), 'Workspace');
  const { deps } = ctx;
  checkDestination(deps, input.type, input.config);
  const iso = deps.clock.now().toISOString();
  const secret = input.type === 'WEBHOOK' ? generateWebhookSecret() : undefined;
  const channelId = await deps.store.nextId('alertChannel');
  const confirmation = input.type === 'EMAIL' ? newConfirmation(channelId) : undefined;
  const created = await deps.store.entities.alertChannel
    .create({
      channelId,
      workspaceId: input.workspaceId,
      name: input.name,
      type: input.type,
      ...storedOf(input.type, input.config),
      secret,
      ...(confirmation ? { confirmTokenHash: confirmation.confirmTokenHash } : {}),
      enabled: input.enabled ?? true,
      createdBy: ctx.actor.kind === 'user' ? ctx.actor.userId : undefined,
      createdAt: iso,
      updatedAt: iso,
    })
    .go();
  if (confirmation) {
    // A channel whose link never went out is taken back, so the admin's retry makes one channel, not two.
    await undoIfFails(
      () => mailConfirmation(deps, created.data.email ?? '', created.data.name, confirmation.token),
      () =>
        deps.store.entities.alertChannel
          .delete({ channelId })
          .where((attr, op) => op.eq(attr.confirmTokenHash, confirmation.confirmTokenHash))
          .go(),
      `alert channel ${channelId}`,
    );
  }
  return { ...toAlertChannel(created.data, 'ADMIN'), ...(secret ? { secret } : {}) };
}

export async function listAlertChannels(ctx: Ctx, workspaceId: number): Promise<AlertChannelItem[]> {
  await authorize(ctx.deps, ctx.actor, workspaceId, 'VIEWER', 'Workspace');
  const result = await ctx.deps.store.entities.alertChannel.query.byWorkspace({ workspaceId }).go({ pages: 'all' });
  return result.data.sort((a, b) => a.channelId - b.channelId);
}

/** The channels as the caller may see them (Slack and webhook URLs masked below ADMIN). */
export async function viewAlertChannels(ctx: Ctx, workspaceId: number) {
  const { role } = await authorize(ctx.deps, ctx.actor, workspaceId, 'VIEWER', 'Workspace');
  return (await listAlertChannels(ctx, workspaceId)).map((channel) => toAlertChannel(channel, role));
}

export async function viewAlertChannel(ctx: Ctx, channelId: number) {
  const channel = await getAlertChannel(ctx, channelId);
  const { role } = await authorize(ctx.deps, ctx.actor, channel.workspaceId, 'VIEWER', 'Alert channel');
  return toAlertChannel(channel, role);
}

/** Loads a channel the caller may use at `minimum`, or 404s: foreign ids do not exist. */
export async function getAlertChannel(ctx: Ctx, channelId: number, minimum: Role = 'VIEWER'): Promise<AlertChannelItem> {
  const channel = (await ctx.deps.store.entities.alertChannel.get({ channelId }).go()).data;
  if (!channel) throw notFound('Alert channel');
  await authorize(ctx.deps, ctx.actor, channel.workspaceId, minimum, 'Alert channel');
  return channel;
}

/**
 * For other areas holding channel ids (escalation policies and rules, dispatch): the channel if
 * it belongs to `workspaceId`, else 404, so an id from another workspace behaves as unknown.
 * The caller has already authorised against `workspaceId`.
 */
export async function findAlertChannelInWorkspace(deps: Deps, workspaceId: number, channelId: number): Promise<AlertChannelItem> {
  const channel = (await deps.store.entities.alertChannel.get({ channelId }).go()).data;
  if (!channel || channel.workspaceId !== workspaceId) throw notFound('Alert channel');
  return channel;
}

export async function updateAlertChannel(ctx: Ctx, channelId: number, input: AlertChannelUpdate) {
  const channel = await getAlertChannel(ctx, channelId, manageRole(ctx.actor));
  let destination: Destination = {};
  if (input.config !== undefined) {
    const parsed = CHANNEL_CONFIGS[channel.type].safeParse(input.config);
    if (!parsed.success) {
      const details = zodDetails(parsed.error).map((d) => ({ ...d, path: `config.${d.path}` }));
      throw badRequest(`Validation failed: config does not fit a ${channel.type} channel`, details);
    }
    checkDestination(ctx.deps, channel.type, parsed.data);
    destination = storedOf(channel.type, parsed.data);
  }
  // A new address confirms again before it receives anything. An address still unconfirmed gets a
  // fresh link whenever a PATCH names it, the same one included: how to ask for the mail again,
  // and how a PATCH whose mail failed is retried.
  const confirmation =
    channel.type === 'EMAIL' && destination.email !== undefined && (destination.email !== channel.email || awaitingConfirmation(channel)) ? newConfirmation(channelId) : undefined;
  // Counted before anything is written: a refused PATCH changes nothing.
  if (confirmation)
    enforce(await consumeRateLimit(ctx.deps, CONFIRMATION_RESEND_LIMIT, `channel:${channelId}`), 'Too many confirmation mails for this channel: try again after Retry-After');
  // A config replaces the whole destination: an optional field it leaves out is removed.
  const present = Object.fromEntries(Object.entries(destination).filter(([, value]) => value !== undefined));
  const dropped = Object.keys(destination).filter((key) => !(key in present)) as (keyof StoredDestination)[];
  const patch = ctx.deps.store.entities.alertChannel.patch({ channelId }).set({
    ...(confirmation ? { confirmTokenHash: confirmation.confirmTokenHash } : {}),
    updatedAt: ctx.deps.clock.now().toISOString(),
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
    ...present,
  });
  // Enabling a channel that delivery turned off clears the reason; its last error stays as history.
  const reenabled = input.enabled === true && channel.disabledReason !== undefined;
  const removed = [...(reenabled ? (['disabledReason'] as const) : []), ...dropped];
  const updated = await (removed.length > 0 ? patch.remove(removed) : patch).go({ response: 'all_new' });
  if (confirmation) await mailConfirmation(ctx.deps, destination.email ?? '', updated.data.name ?? channel.name, confirmation.token);
  const kept: AlertChannelItem = { ...channel };
  for (const key of removed) delete kept[key];
  // A key's answer is masked like its reads: it may change a channel, not learn its credentials.
  return toAlertChannel({ ...kept, ...updated.data }, manageRole(ctx.actor));
}

export async function deleteAlertChannel(ctx: Ctx, channelId: number): Promise<void> {
  const channel = await getAlertChannel(ctx, channelId, manageRole(ctx.actor));
  await refuseIfTargeted(ctx.deps.store, channel.workspaceId, 'ALERT_CHANNEL', channelId, `Alert channel ${channelId}`);
  await ctx.deps.store.entities.alertChannel.delete({ channelId }).go();
}
