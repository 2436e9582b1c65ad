import type { Ctx } from '../context.js';
import { findAlertChannelInWorkspace, toAlertChannel } from '../alerting/channels.js';
import { authorize } from '../auth/authorize.js';
import type { Role } from '../auth/roles.js';
import type { Deps } from '../deps.js';
import { conflict, notFound } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { retryOnConflict } from '../store/conditional.js';
import type { AlertChannelItem } from '../store/entities/alertChannel.js';
import type { EscalationRuleItem } from '../store/entities/escalationRule.js';
import type { ProjectItem } from '../store/entities/project.js';
import { acquireLock, releaseLock } from '../store/locks.js';
import { pageOfQuery } from '../store/page.js';
import type { Rule, RuleCreate, RuleUpdate } from './schema.js';
import { getAll } from '../store/batch.js';

/**
 * Legacy escalation rules (the spec keeps them; policies replace them). VIEWER reads, ADMIN
 * writes. (projectId, alertChannelId, delayMinutes) is unique through a lock item.
 */

const summary = (channel: AlertChannelItem | null | undefined, id: number) => ({ id, name: channel?.name ?? '', type: channel?.type ?? ('EMAIL' as const) });

export function toRule(rule: EscalationRuleItem, channel: AlertChannelItem | null | undefined): Rule {
  return {
    id: rule.ruleId,
    projectId: rule.projectId,
    alertChannelId: rule.alertChannelId,
    delayMinutes: rule.delayMinutes,
    enabled: rule.enabled,
    alertChannel: summary(channel, rule.alertChannelId),
    createdAt: rule.createdAt,
    updatedAt: rule.updatedAt,
  };
}

async function channelsById(deps: Deps, ids: readonly number[]): Promise<Map<number, AlertChannelItem>> {
  if (ids.length === 0) return new Map();
  const found = await getAll(
    deps.store,
    [...new Set(ids)].map((channelId) => ({ channelId })),
    (keys) => deps.store.entities.alertChannel.get(keys).go(),
    'alert channels',
  );
  return new Map(found.map((c) => [c.channelId, c]));
}

async function loadProject(ctx: Ctx, projectId: number, minimum: Role): Promise<ProjectItem> {
  const project = (await ctx.deps.store.entities.project.get({ projectId }).go()).data;
  if (!project) throw notFound('Project');
  await authorize(ctx.deps, ctx.actor, project.workspaceId, minimum, 'Project');
  return project;
}

const readRule = async (deps: Deps, ruleId: number, consistent = false) => (await deps.store.entities.escalationRule.get({ ruleId }).go({ consistent })).data;

async function loadRule(ctx: Ctx, ruleId: number, minimum: Role): Promise<EscalationRuleItem> {
  const rule = await readRule(ctx.deps, ruleId);
  if (!rule) throw notFound('Escalation rule');
  await authorize(ctx.deps, ctx.actor, rule.workspaceId, minimum, 'Escalation rule');
  return rule;
}

type Combination = { projectId: number; alertChannelId: number; delayMinutes: number };
const comboScope = (c: Combination) => `escalation-rule#${c.projectId}`;
const comboValue = (c: Combination) => `${c.alertChannelId}#${c.delayMinutes}`;
const LOCK_GRACE_MS = 60_000;

async function claimCombination(deps: Deps, combo: Combination, ruleId: number): Promise<void> {
  const now = deps.clock.now();
  const alive = async (owner: string, lockedAt: string) => {
    if (now.getTime() - Date.parse(lockedAt) < LOCK_GRACE_MS) return true;
    const holder = await readRule(deps, Number(owner), true);
    return holder !== null && comboScope(holder) === comboScope(combo) && comboValue(holder) === comboValue(combo);
  };
  if (!(await acquireLock(deps.store, comboScope(combo), comboValue(combo), String(ruleId), now, alive))) {
    throw conflict(`A rule for alert channel ${combo.alertChannelId} after ${combo.delayMinutes} minutes already exists for project ${combo.projectId}`);
  }
}

const releaseCombination = (deps: Deps, combo: Combination, ruleId: number) => releaseLock(deps.store, comboScope(combo), comboValue(combo), String(ruleId));

export async function createRule(ctx: Ctx, input: RuleCreate): Promise<Rule> {
  const project = await loadProject(ctx, input.projectId, 'ADMIN');
  const channel = await findAlertChannelInWorkspace(ctx.deps, project.workspaceId, input.alertChannelId);
  const ruleId = await ctx.deps.store.nextId('escalationRule');
  await claimCombination(ctx.deps, input, ruleId);
  const iso = ctx.deps.clock.now().toISOString();
  try {
    const created = await ctx.deps.store.entities.escalationRule.create({ ruleId, workspaceId: project.workspaceId, ...input, revision: 1, createdAt: iso, updatedAt: iso }).go();
    return toRule(created.data, channel);
  } catch (err) {
    await releaseCombination(ctx.deps, input, ruleId);
    throw err;
  }
}

/** The project's rules in delay order, straight from the index (delay is part of its sort key). */
export async function listRules(ctx: Ctx, query: { projectId: number; page: number; limit: number }): Promise<Page<Rule>> {
  await loadProject(ctx, query.projectId, 'VIEWER');
  const rules = ctx.deps.store.entities.escalationRule.query.byProject({ projectId: query.projectId });
  const page = await pageOfQuery(ctx.deps.store, rules, query.page, query.limit, (r) => r);
  const channels = await channelsById(
    ctx.deps,
    page.items.map((r) => r.alertChannelId),
  );
  return { ...page, items: page.items.map((r) => toRule(r, channels.get(r.alertChannelId))) };
}

/** The rule with its full channel, secrets masked as on `GET /alert-channels/:id`. */
export async function getRule(ctx: Ctx, ruleId: number) {
  const rule = await loadRule(ctx, ruleId, 'VIEWER');
  const channel = (await ctx.deps.store.entities.alertChannel.get({ channelId: rule.alertChannelId }).go()).data;
  if (!channel) throw notFound('Alert channel');
  // Masked as for the caller's role (a Slack URL is whole only from ADMIN up).
  const { role } = await authorize(ctx.deps, ctx.actor, channel.workspaceId, 'VIEWER');
  return { ...toRule(rule, channel), alertChannel: toAlertChannel(channel, role) };
}

const lostRaces = () => conflict('The rule kept changing while this request ran; try again');

/** Any of projectId, alertChannelId, delayMinutes, enabled; the rule stays in its workspace. */
export async function updateRule(ctx: Ctx, ruleId: number, input: RuleUpdate): Promise<Rule> {
  const first = await loadRule(ctx, ruleId, 'ADMIN');
  if (input.projectId !== undefined && input.projectId !== first.projectId) {
    const project = (await ctx.deps.store.entities.project.get({ projectId: input.projectId }).go()).data;
    if (!project || project.workspaceId !== first.workspaceId) throw notFound('Project');
  }
  const channel = await findAlertChannelInWorkspace(ctx.deps, first.workspaceId, input.alertChannelId ?? first.alertChannelId);
  const next: Combination = {
    projectId: input.projectId ?? first.projectId,
    alertChannelId: input.alertChannelId ?? first.alertChannelId,
    delayMinutes: input.delayMinutes ?? first.delayMinutes,
  };
  const moved = comboScope(next) !== comboScope(first) || comboValue(next) !== comboValue(first);
  if (moved) await claimCombination(ctx.deps, next, ruleId);
  let updated: EscalationRuleItem;
  try {
    updated = await retryOnConflict(
      async (attempt) => {
        const current = attempt === 1 ? first : await readRule(ctx.deps, ruleId, true);
        if (!current) throw notFound('Escalation rule');
        const written = await ctx.deps.store.entities.escalationRule
          .patch({ ruleId })
          .set({ ...next, revision: current.revision + 1, updatedAt: ctx.deps.clock.now().toISOString(), ...(input.enabled !== undefined ? { enabled: input.enabled } : {}) })
          .where((attr, op) => op.eq(attr.revision, current.revision))
          .go({ response: 'all_new' });
        return written.data as EscalationRuleItem;
      },
      { onExhausted: lostRaces, what: 'rule update' },
    );
  } catch (err) {
    if (moved) await releaseCombination(ctx.deps, next, ruleId);
    throw err;
  }
  if (moved) await releaseCombination(ctx.deps, first, ruleId);
  return toRule(updated, channel);
}

/** Other rules are unaffected. */
export async function deleteRule(ctx: Ctx, ruleId: number): Promise<void> {
  const rule = await loadRule(ctx, ruleId, 'ADMIN');
  await ctx.deps.store.entities.escalationRule.delete({ ruleId }).go();
  await releaseCombination(ctx.deps, rule, ruleId);
}
