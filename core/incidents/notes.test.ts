import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { addMember, createCheck, deliver, incidentsOf, statusChanged, type User } from '../../test/support/incidents.js';

type Note = { id: number; incidentId: number; body: string; authorId: number; author: { id: number; email: string } | null; createdAt: string; updatedAt: string };

let t: TestContext;
let owner: User;
let colleague: User;
let viewer: User;
let stranger: User;
let incidentId: number;
let otherIncidentId: number;
beforeAll(async () => {
  t = await createTestContext();
  owner = await t.signup('owner');
  colleague = await t.signup('colleague');
  viewer = await t.signup('viewer');
  stranger = await t.signup('stranger');
  await addMember(t, owner, colleague, 'ADMIN');
  await addMember(t, owner, viewer, 'VIEWER');
  const check = await createCheck(t, owner);
  const second = await createCheck(t, owner);
  await deliver(t, statusChanged(check, 'OK', 'LATE', t.clock.now()), statusChanged(second, 'OK', 'DOWN', t.clock.now()));
  const items = (await incidentsOf(t, owner)).items;
  incidentId = items.find((i) => i.checkId === check.id)!.id;
  otherIncidentId = items.find((i) => i.checkId === second.id)!.id;
});

const write = (user: User, method: string, path: string, body?: unknown) => t.request<Note>(method, path, { token: user.token, body });
const list = async (user: User, id = incidentId) => t.request<Note[]>('GET', `/incident-notes/${id}`, { token: user.token });

describe('incident notes', () => {
  it('creates, lists oldest first, and lets the author edit', async () => {
    const created = await write(owner, 'POST', `/incident-notes/${incidentId}`, { body: 'Looking into it' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ incidentId, body: 'Looking into it', authorId: owner.userId, author: { id: owner.userId, email: owner.email } });
    await write(colleague, 'POST', `/incident-notes/${incidentId}`, { body: 'Disk full on db-2' });
    expect((await list(viewer)).body.map((n) => n.body)).toEqual(['Looking into it', 'Disk full on db-2']);

    t.clock.advanceSeconds(60);
    const edited = await write(owner, 'PATCH', `/incident-notes/${incidentId}/${created.body.id}`, { body: 'Root cause found' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ body: 'Root cause found', updatedAt: t.clock.now().toISOString(), createdAt: created.body.createdAt });
  });

  it('lets only the author change or delete a note: everyone else 403, even an admin or the owner', async () => {
    const mine = await write(colleague, 'POST', `/incident-notes/${incidentId}`, { body: 'mine' });
    expectError(await write(owner, 'PATCH', `/incident-notes/${incidentId}/${mine.body.id}`, { body: 'hijacked' }), 403);
    expectError(await write(owner, 'DELETE', `/incident-notes/${incidentId}/${mine.body.id}`), 403);
    expectError(await write(viewer, 'PATCH', `/incident-notes/${incidentId}/${mine.body.id}`, { body: 'hijacked' }), 403);
    expect((await list(owner)).body.find((n) => n.id === mine.body.id)?.body).toBe('mine');
  });

  it('soft-deletes: a deleted note is not listed and cannot be changed again', async () => {
    const note = await write(owner, 'POST', `/incident-notes/${incidentId}`, { body: 'temporary' });
    const deleted = await t.request('DELETE', `/incident-notes/${incidentId}/${note.body.id}`, { token: owner.token });
    expect(deleted.status).toBe(204);
    expect((await list(owner)).body.map((n) => n.id)).not.toContain(note.body.id);
    expectError(await write(owner, 'PATCH', `/incident-notes/${incidentId}/${note.body.id}`, { body: 'back' }), 404);
    expectError(await write(owner, 'DELETE', `/incident-notes/${incidentId}/${note.body.id}`), 404);
    const stored = (await t.deps.store.entities.incidentNote.get({ incidentId, noteId: note.body.id }).go()).data;
    expect(stored?.deletedAt).toBeDefined();
  });

  it('rejects bad bodies with 400 and changes nothing', async () => {
    const before = (await list(owner)).body;
    expectError(await write(owner, 'POST', `/incident-notes/${incidentId}`, { body: '   ' }), 400, 'VALIDATION_ERROR');
    expectError(await write(owner, 'POST', `/incident-notes/${incidentId}`, {}), 400);
    expectError(await write(owner, 'POST', `/incident-notes/${incidentId}`, { body: 'x', pinned: true }), 400);
    expectError(await write(owner, 'POST', `/incident-notes/${incidentId}`, { body: 'x'.repeat(10_001) }), 400);
    expectError(await write(owner, 'POST', '/incident-notes/abc', { body: 'x' }), 400);
    expect((await list(owner)).body).toEqual(before);
  });

  it('404s for other workspaces, unknown incidents and a note of another incident; VIEWER cannot write', async () => {
    const note = await write(owner, 'POST', `/incident-notes/${incidentId}`, { body: 'scoped' });
    expectError(await list(stranger), 404);
    expectError(await write(stranger, 'POST', `/incident-notes/${incidentId}`, { body: 'x' }), 404);
    expectError(await write(stranger, 'PATCH', `/incident-notes/${incidentId}/${note.body.id}`, { body: 'x' }), 404);
    expectError(await write(stranger, 'DELETE', `/incident-notes/${incidentId}/${note.body.id}`), 404);
    expectError(await list(owner, 999_999), 404);
    expectError(await write(owner, 'PATCH', `/incident-notes/${otherIncidentId}/${note.body.id}`, { body: 'x' }), 404);
    expectError(await write(viewer, 'POST', `/incident-notes/${incidentId}`, { body: 'x' }), 403);
    expectError(await t.request('GET', `/incident-notes/${incidentId}`, { token: await t.apiKey(owner) }), 401);
  });
});
