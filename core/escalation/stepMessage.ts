import { z } from 'zod';
import { instant } from '../instant.js';

/**
 * A step the escalation sweep fired, on the `alerts` queue. Its own module because both its
 * writer (the sweep, core/escalation/sweep.ts) and its reader (core/escalation/dispatch.ts) use it,
 * and the reader also calls the sweep's planning for an incident's opening.
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
});
export type EscalationStepMessage = z.infer<typeof EscalationStepMessage>;
