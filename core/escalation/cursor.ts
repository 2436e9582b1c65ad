/**
 * The escalation cursor is part of the incident's state: core/incidents/transition.ts defines it
 * and moves it (advance, hold, acknowledge, resolve), core/incidents/write.ts stores it.
 */
export { openingCursor, type EscalationCursor as Cursor } from '../incidents/transition.js';
