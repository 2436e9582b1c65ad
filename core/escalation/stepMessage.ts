import { z } from 'zod';
import type { EscalationStepOwed } from '../incidents/events.js';
import { instant } from '../instant.js';

/**
 * A step the escalation engine fired, on the `alerts` queue, as its reader
 * (core/escalation/dispatch.ts) validates it. Its writer is the incident's own write that moved
 * the cursor past the step (core/incidents/events.ts stepMessagesFor).
 */
const id = z.number().int().positive();
export const EscalationStepMessage = z.object({
  type: z.literal('incident.escalation_step'),
  incidentId: id,
  workspaceId: id,
  epoch: z.number().int().min(0),
  cycle: z.number().int().min(0),
  step: z.number().int().min(0),
  escalated: z.boolean(),
  /** The instant the step fell due: targets resolve at it (the same person on every redelivery). */
  at: instant,
}) satisfies z.ZodType<EscalationStepOwed, unknown>;
export type EscalationStepMessage = z.infer<typeof EscalationStepMessage>;
