import { z } from '@hono/zod-openapi';
import { declareIncident } from '../../incidents/declare.js';
import { acknowledgeIncident, getIncident, incidentTimeline, listIncidents, resolveIncident } from '../../incidents/incidents.js';
import { createNote, listNotes } from '../../incidents/notes.js';
import { IncidentCreate, NoteBody } from '../../incidents/schema.js';
import { keyWorkspace } from '../key.js';
import { Id, IncidentSummary, PageArgs, PageInfo, TimelineEvent } from '../schema.js';
import { defineTool, type Tool } from '../tool.js';
import { incidentLine, incidentSummary, listText, pageOf } from '../present.js';

/** Long incidents keep their newest history; the count of what was left out is said, not hidden. */
const TIMELINE_EVENTS = 50;
const NOTES = 20;
const NOTE_CHARS = 1000;

const listIncidentsTool = defineTool({
  name: 'list_incidents',
  area: 'incidents',
  title: 'List incidents',
  description:
    'Incidents of the workspace, newest first, as summaries. Filter by state (ACTIVE: every unresolved one, ' +
    'MONITORING included; RESOLVED), project or check. Paginated: the answer says how many remain.',
  input: z.object({
    state: z.enum(['ACTIVE', 'RESOLVED']).optional(),
    projectId: Id.optional(),
    checkId: Id.optional(),
    ...PageArgs,
  }),
  output: z.object({ items: z.array(IncidentSummary), ...PageInfo }),
  effect: 'read',
  async run(ctx, args) {
    const found = await listIncidents(ctx, { ...args, workspaceId: keyWorkspace(ctx) });
    const data = pageOf({ ...found, items: found.items.map(incidentSummary) });
    return { data, text: listText('incidents', data, incidentLine) };
  },
});

const IncidentDetail = IncidentSummary.extend({
  summary: z.string().nullable(),
  declared: z.boolean(),
  dependencyName: z.string().nullable(),
  recoveredAt: z.string().nullable(),
  lastSignalAt: z.string().nullable(),
  lastSignalType: z.string().nullable(),
});

const Note = z.object({ id: z.number().int(), author: z.string().nullable(), body: z.string(), createdAt: z.string() });

const getIncidentTool = defineTool({
  name: 'get_incident',
  area: 'incidents',
  title: 'Get an incident',
  description: `One incident with its timeline (the newest ${TIMELINE_EVENTS} events) and notes (the newest ${NOTES}).`,
  input: z.object({ incidentId: Id }),
  output: z.object({
    incident: IncidentDetail,
    timeline: z.array(TimelineEvent),
    earlierEvents: z.number().int().describe('timeline events older than the ones shown'),
    notes: z.array(Note),
    earlierNotes: z.number().int(),
  }),
  effect: 'read',
  async run(ctx, { incidentId }) {
    const [incident, events, notes] = await Promise.all([getIncident(ctx, incidentId), incidentTimeline(ctx, incidentId), listNotes(ctx, incidentId)]);
    const timeline = events.slice(-TIMELINE_EVENTS).map((e) => ({ type: e.type, message: e.message, occurredAt: e.occurredAt }));
    const shownNotes = notes.slice(-NOTES).map((n) => ({
      id: n.id,
      author: n.author?.email ?? (n.authorApiKey ? `API key "${n.authorApiKey.name}"` : null),
      body: n.body.length > NOTE_CHARS ? `${n.body.slice(0, NOTE_CHARS)}…` : n.body,
      createdAt: n.createdAt,
    }));
    const detail = {
      ...incidentSummary(incident),
      summary: incident.summary,
      declared: incident.declared,
      dependencyName: incident.dependencyName,
      recoveredAt: incident.recoveredAt,
      lastSignalAt: incident.lastSignalAt,
      lastSignalType: incident.lastSignalType,
    };
    const text = [
      incidentLine(detail),
      ...(detail.summary ? [detail.summary] : []),
      ...timeline.map((e) => `${e.occurredAt} ${e.type}: ${e.message}`),
      ...shownNotes.map((n) => `note by ${n.author ?? 'unknown'} at ${n.createdAt}: ${n.body}`),
    ].join('\n');
    return {
      data: { incident: detail, timeline, earlierEvents: events.length - timeline.length, notes: shownNotes, earlierNotes: notes.length - shownNotes.length },
      text,
    };
  },
});

const Changed = z.object({ incident: IncidentSummary });

const declareIncidentTool = defineTool({
  name: 'declare_incident',
  area: 'incidents',
  title: 'Declare an incident',
  description:
    'Declares an incident by hand (the body of POST /v1/incidents): a title, optionally a description, a severity ' + '(P1-P4) and at most one of checkId, jobId, dependencyId.',
  input: IncidentCreate,
  output: Changed,
  effect: { destructive: false, idempotent: false },
  async run(ctx, body) {
    const incident = incidentSummary(await declareIncident(ctx, keyWorkspace(ctx), body));
    return { data: { incident }, text: `Declared ${incidentLine(incident)}` };
  },
});

const acknowledgeIncidentTool = defineTool({
  name: 'acknowledge_incident',
  area: 'incidents',
  title: 'Acknowledge an incident',
  description: 'Acknowledges an incident, which stops its escalation. Acknowledging twice keeps the first acknowledgement; a resolved incident is refused (409).',
  input: z.object({ incidentId: Id }),
  output: Changed,
  effect: { destructive: false, idempotent: true },
  async run(ctx, { incidentId }) {
    const incident = incidentSummary(await acknowledgeIncident(ctx, incidentId));
    return { data: { incident }, text: `Acknowledged ${incidentLine(incident)}` };
  },
});

const resolveIncidentTool = defineTool({
  name: 'resolve_incident',
  area: 'incidents',
  title: 'Resolve an incident',
  description: 'Resolves an incident by hand; a resolved incident cannot be reopened. Resolving a resolved incident returns it unchanged.',
  input: z.object({ incidentId: Id }),
  output: Changed,
  effect: { destructive: true, idempotent: true },
  async run(ctx, { incidentId }) {
    const incident = incidentSummary(await resolveIncident(ctx, incidentId));
    return { data: { incident }, text: `Resolved ${incidentLine(incident)}` };
  },
});

const addIncidentNoteTool = defineTool({
  name: 'add_incident_note',
  area: 'incidents',
  title: 'Add a note to an incident',
  description: "Adds a note to an incident's notes, written by this API key (named on the note). Each call adds a note.",
  input: z.object({ incidentId: Id, body: NoteBody.shape.body }),
  output: z.object({ note: z.object({ id: z.number().int(), incidentId: z.number().int(), body: z.string(), createdAt: z.string() }) }),
  effect: { destructive: false, idempotent: false },
  async run(ctx, { incidentId, body }) {
    const note = await createNote(ctx, incidentId, body);
    return { data: { note: { id: note.id, incidentId: note.incidentId, body: note.body, createdAt: note.createdAt } }, text: `Note ${note.id} added to incident ${incidentId}` };
  },
});

export const incidentTools: Tool[] = [listIncidentsTool, getIncidentTool, declareIncidentTool, acknowledgeIncidentTool, resolveIncidentTool, addIncidentNoteTool];
