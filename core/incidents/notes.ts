import { forbidden, notFound } from '../http/errors.js';
import type { IncidentItem } from '../store/entities/incident.js';
import type { IncidentNoteItem } from '../store/entities/incidentNote.js';
import { isConditionalFailure } from '../store/conditional.js';
import { broadcast, incidentEvent } from '../signals/streamEvents.js';
import { loadIncident } from './incidents.js';
import type { Ctx } from '../context.js';

type Author = { id: number; email: string } | null;

const toNote = (n: IncidentNoteItem, author: Author) => ({
  id: n.noteId,
  incidentId: n.incidentId,
  body: n.body,
  authorId: n.authorId ?? null,
  author,
  authorApiKey: n.authorApiKeyId !== undefined ? { id: n.authorApiKeyId, name: n.authorApiKeyName ?? '' } : null,
  createdAt: n.createdAt,
  updatedAt: n.updatedAt,
});

async function authorOf(ctx: Ctx, userId: number | undefined): Promise<Author> {
  if (userId === undefined) return null;
  const user = (await ctx.deps.store.entities.user.get({ userId }).go()).data;
  return user ? { id: user.userId, email: user.email } : null;
}

/** Notes are changed by the person who wrote them (the dashboard surface, so a user). */
function authorId(ctx: Ctx): number {
  if (ctx.actor.kind !== 'user') throw forbidden('Notes are changed by the user who wrote them');
  return ctx.actor.userId;
}

/** Who writes a new note: a user, or an API key (an assistant through MCP), named on the note. */
function newNoteAuthor(ctx: Ctx): { authorId?: number; authorApiKeyId?: number; authorApiKeyName?: string } {
  return ctx.actor.kind === 'user' ? { authorId: ctx.actor.userId } : { authorApiKeyId: ctx.actor.apiKeyId, authorApiKeyName: ctx.actor.name };
}

export async function listNotes(ctx: Ctx, incidentId: number) {
  await loadIncident(ctx, incidentId, 'VIEWER');
  const notes = (await ctx.deps.store.entities.incidentNote.query.byIncident({ incidentId }).go({ pages: 'all' })).data
    .filter((n) => n.deletedAt === undefined)
    .sort((a, b) => a.noteId - b.noteId);
  const authors = new Map<number, Promise<Author>>();
  for (const n of notes) if (n.authorId !== undefined && !authors.has(n.authorId)) authors.set(n.authorId, authorOf(ctx, n.authorId));
  return Promise.all(notes.map(async (n) => toNote(n, n.authorId === undefined ? null : ((await authors.get(n.authorId)) ?? null))));
}

export async function createNote(ctx: Ctx, incidentId: number, body: string) {
  const incident = await loadIncident(ctx, incidentId, 'MEMBER');
  const author = newNoteAuthor(ctx);
  const iso = ctx.deps.clock.now().toISOString();
  const noteId = await ctx.deps.store.nextId('incidentNote');
  const created = (
    await ctx.deps.store.entities.incidentNote.create({ incidentId, noteId, workspaceId: incident.workspaceId, ...author, body, createdAt: iso, updatedAt: iso }).go()
  ).data;
  await broadcast(ctx.deps, [incidentEvent(incident, 'timeline')]);
  return toNote(created, await authorOf(ctx, author.authorId));
}

/** The live note, if the caller wrote it: another member's note is 403, a deleted one 404. */
async function loadOwnNote(ctx: Ctx, incidentId: number, noteId: number): Promise<{ incident: IncidentItem; note: IncidentNoteItem }> {
  const incident = await loadIncident(ctx, incidentId, 'MEMBER');
  const note = (await ctx.deps.store.entities.incidentNote.get({ incidentId, noteId }).go({ consistent: true })).data;
  if (!note || note.deletedAt !== undefined) throw notFound('Note');
  if (note.authorId !== authorId(ctx)) throw forbidden('Only the author may change a note');
  return { incident, note };
}

export async function updateNote(ctx: Ctx, incidentId: number, noteId: number, body: string) {
  const { incident, note } = await loadOwnNote(ctx, incidentId, noteId);
  const iso = ctx.deps.clock.now().toISOString();
  try {
    await ctx.deps.store.entities.incidentNote
      .patch({ incidentId, noteId })
      .set({ body, updatedAt: iso })
      .where((attr, op) => `${op.notExists(attr.deletedAt)} AND ${op.eq(attr.authorId, note.authorId)}`)
      .go();
  } catch (err) {
    if (isConditionalFailure(err)) throw notFound('Note');
    throw err;
  }
  await broadcast(ctx.deps, [incidentEvent(incident, 'timeline')]);
  return toNote({ ...note, body, updatedAt: iso }, await authorOf(ctx, note.authorId));
}

/** Soft delete: the note stays stored but is no longer listed or changeable. */
export async function deleteNote(ctx: Ctx, incidentId: number, noteId: number): Promise<void> {
  const { incident } = await loadOwnNote(ctx, incidentId, noteId);
  const iso = ctx.deps.clock.now().toISOString();
  try {
    await ctx.deps.store.entities.incidentNote
      .patch({ incidentId, noteId })
      .set({ deletedAt: iso, updatedAt: iso })
      .where((attr, op) => op.notExists(attr.deletedAt))
      .go();
  } catch (err) {
    if (isConditionalFailure(err)) throw notFound('Note');
    throw err;
  }
  await broadcast(ctx.deps, [incidentEvent(incident, 'timeline')]);
}
