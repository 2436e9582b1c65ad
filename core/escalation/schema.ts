import { z } from '@hono/zod-openapi';
import { AlertChannel } from '../alerting/channelsSchema.js';
import { pageQuery } from '../http/pagination.js';
import { ALERT_CHANNEL_TYPES } from '../store/entities/alertChannel.js';
import { DEFAULT_LIST_LIMIT } from '../oncall/teamSchema.js';
import { Instant } from '../oncall/schema.js';

/**
 * Escalation policies and legacy rules: the spec's "Escalation policy" and "Escalation rule"
 * sections (docs/guide/oncall-and-escalation.md). Bounds the spec leaves open are ours and named here.
 */
export const MAX_STEPS = 20;
export const MAX_TARGETS_PER_STEP = 20;
/** A step fires at most a week after the incident opened; so does a legacy rule. */
export const MAX_DELAY_MINUTES = 10_080;
export const MAX_REPEAT_COUNT = 10;
export const MAX_PRIORITY = 10_000;
export const MAX_PROJECT_IDS = 100;

const bodyId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const queryId = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const name = z.string().trim().min(1).max(255);
const delayMinutes = z.number().int().min(0).max(MAX_DELAY_MINUTES);

export const Target = z
  .discriminatedUnion('targetType', [
    z.strictObject({ targetType: z.literal('ALERT_CHANNEL'), alertChannelId: bodyId }),
    z.strictObject({ targetType: z.literal('USER'), targetUserId: bodyId }),
    z.strictObject({ targetType: z.literal('ON_CALL_SCHEDULE'), targetScheduleId: bodyId }),
    z.strictObject({ targetType: z.literal('TEAM'), targetTeamId: bodyId }),
  ])
  .openapi('EscalationTarget');
export type Target = z.infer<typeof Target>;

export const StepInput = z
  .strictObject({
    position: z
      .number()
      .int()
      .min(0)
      .max(MAX_STEPS - 1)
      .describe('0-indexed'),
    delayMinutes: delayMinutes.describe('Minutes after the incident opened'),
    targets: z.array(Target).min(1).max(MAX_TARGETS_PER_STEP),
  })
  .openapi('EscalationStepInput');
export type StepInput = z.infer<typeof StepInput>;

const targetKey = (t: Target): string => JSON.stringify(Object.entries(t).sort());

/** Positions 0..n-1 without gaps, delays strictly increasing with position, no target twice in a step. */
export const Steps = z
  .array(StepInput)
  .min(1)
  .max(MAX_STEPS)
  .superRefine((steps, ctx) => {
    const ordered = [...steps].sort((a, b) => a.position - b.position);
    if (ordered.some((step, i) => step.position !== i)) ctx.addIssue({ code: 'custom', path: [], message: 'positions must be 0..n-1, each once' });
    ordered.forEach((step, i) => {
      const previous = ordered[i - 1];
      if (previous && step.delayMinutes <= previous.delayMinutes) {
        ctx.addIssue({ code: 'custom', path: [steps.indexOf(step), 'delayMinutes'], message: 'must be greater than the delay of the step before' });
      }
      const keys = step.targets.map(targetKey);
      if (new Set(keys).size !== keys.length) ctx.addIssue({ code: 'custom', path: [steps.indexOf(step), 'targets'], message: 'a target may appear once per step' });
    });
  });

const projectIds = z
  .array(bodyId)
  .max(MAX_PROJECT_IDS)
  .nullable()
  .describe('null means every project (catch-all); an empty list only beside integrationIds (a policy for those integrations alone)');
const integrationIds = z.array(bodyId).max(MAX_PROJECT_IDS).describe('Incidents opened by these integrations (alerts in) are routed by this policy too, whatever their project');
const NOTHING_SELECTED = 'must name a project unless integrationIds names an integration';
const ackTimeoutMinutes = z.number().int().min(1).max(MAX_DELAY_MINUTES).nullable().describe('Re-escalate an acknowledged, unresolved incident after this long; null: never');

const PolicyFields = z.strictObject({
  workspaceId: bodyId,
  name,
  priority: z.number().int().min(0).max(MAX_PRIORITY).describe('Evaluation order, 0 first; unique per workspace'),
  projectIds: projectIds.default(null),
  integrationIds: integrationIds.default([]),
  ackTimeoutMinutes: ackTimeoutMinutes.default(null),
  repeatCount: z.number().int().min(0).max(MAX_REPEAT_COUNT).default(0),
  enabled: z.boolean().default(true),
  steps: Steps,
});
const selectsSomething = (policy: { projectIds: number[] | null; integrationIds: number[] }, ctx: z.RefinementCtx) => {
  if (policy.projectIds?.length === 0 && policy.integrationIds.length === 0) ctx.addIssue({ code: 'custom', path: ['projectIds'], message: NOTHING_SELECTED });
};
export const PolicyCreate = PolicyFields.superRefine(selectsSomething).openapi('EscalationPolicyCreate');
export type PolicyCreate = z.infer<typeof PolicyCreate>;
/** The Integration API's: `workspaceId` defaults to the key's own. */
export const PolicyCreateV1 = PolicyFields.extend({ workspaceId: bodyId.optional() }).superRefine(selectsSomething).openapi('EscalationPolicyCreateV1');

/** Changed fields; a supplied `steps` array replaces every step. */
export const PolicyUpdate = z
  .strictObject({
    name: name.optional(),
    priority: z.number().int().min(0).max(MAX_PRIORITY).optional(),
    projectIds: projectIds.optional(),
    integrationIds: integrationIds.optional(),
    ackTimeoutMinutes: ackTimeoutMinutes.optional(),
    repeatCount: z.number().int().min(0).max(MAX_REPEAT_COUNT).optional(),
    enabled: z.boolean().optional(),
    steps: Steps.optional(),
  })
  .openapi('EscalationPolicyUpdate');
export type PolicyUpdate = z.infer<typeof PolicyUpdate>;

export const Step = z.object({ position: z.number().int(), delayMinutes: z.number().int(), targets: z.array(Target) }).openapi('EscalationStep');
export type Step = z.infer<typeof Step>;

export const Policy = z
  .object({
    id: z.number().int(),
    workspaceId: z.number().int(),
    name: z.string(),
    priority: z.number().int(),
    projectIds: z.array(z.number().int()).nullable(),
    integrationIds: z.array(z.number().int()),
    ackTimeoutMinutes: z.number().int().nullable(),
    repeatCount: z.number().int(),
    enabled: z.boolean(),
    steps: z.array(Step),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('EscalationPolicy');
export type Policy = z.infer<typeof Policy>;

export { WorkspaceListQuery } from '../oncall/teamSchema.js';
export const ProjectListQuery = z.object({ projectId: queryId }).extend(pageQuery(DEFAULT_LIST_LIMIT).shape);
export const SimulateQuery = z.object({ at: Instant.optional(), projectId: queryId.optional() });

/** The editor's live preview: steps and repeats not saved yet, simulated like a stored policy. */
export const SimulateDraft = z
  .strictObject({
    workspaceId: bodyId,
    repeatCount: z.number().int().min(0).max(MAX_REPEAT_COUNT).default(0),
    steps: Steps,
    at: Instant.optional(),
    projectId: bodyId.optional(),
  })
  .openapi('EscalationSimulationDraft');
export type SimulateDraft = z.infer<typeof SimulateDraft>;

export const RuleCreate = z
  .strictObject({ projectId: bodyId, alertChannelId: bodyId, delayMinutes: delayMinutes.describe('0 notifies at once'), enabled: z.boolean().default(true) })
  .openapi('EscalationRuleCreate');
export type RuleCreate = z.infer<typeof RuleCreate>;

export const RuleUpdate = z
  .strictObject({ projectId: bodyId.optional(), alertChannelId: bodyId.optional(), delayMinutes: delayMinutes.optional(), enabled: z.boolean().optional() })
  .openapi('EscalationRuleUpdate');
export type RuleUpdate = z.infer<typeof RuleUpdate>;

const ChannelSummary = z.object({ id: z.number().int(), name: z.string(), type: z.enum(ALERT_CHANNEL_TYPES) });

export const Rule = z
  .object({
    id: z.number().int(),
    projectId: z.number().int(),
    alertChannelId: z.number().int(),
    delayMinutes: z.number().int(),
    enabled: z.boolean(),
    alertChannel: ChannelSummary,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('EscalationRule');
export type Rule = z.infer<typeof Rule>;

export const RuleDetail = Rule.extend({ alertChannel: AlertChannel.describe('The full channel; secrets masked') }).openapi('EscalationRuleDetail');
