import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { LONG_SESSIONS, createCheck, freshRateWindow, inboundBody } from '../../test/support/checks.js';
import type { Component } from './schema.js';
import { checkComponent, createComponent, createPage, expectStatus, type User } from '../../test/support/statuspages.js';

let t: TestContext;
let user: User;
let other: User;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('owner');
  other = await t.signup('stranger');
});
beforeEach(() => freshRateWindow(t));

describe('status page components', () => {
  it('takes exactly one target of the page’s workspace; foreign targets are 404', async () => {
    const page = await createPage(t, user);
    const check = await createCheck(t, user, inboundBody(user));
    const foreignCheck = await createCheck(t, other, inboundBody(other));
    const path = `/status-pages/${page.id}/components`;
    const as = { token: user.token };
    expectError(await t.request('POST', path, { ...as, body: { name: 'none' } }), 400);
    expectError(await t.request('POST', path, { ...as, body: { name: 'two', checkId: check.id, projectId: user.projectId } }), 400);
    expectError(await t.request('POST', path, { ...as, body: { name: 'foreign', checkId: foreignCheck.id } }), 404);
    expectError(await t.request('POST', path, { ...as, body: { name: 'foreign', projectId: other.projectId } }), 404);
    expectError(await t.request('POST', path, { ...as, body: { name: 'missing', dependencyId: 999_999 } }), 404);
    const byCheck = await createComponent(t, user, page.id, { name: 'Checkout', checkId: check.id, groupName: 'Shop' });
    expect(byCheck).toMatchObject({ statusPageId: page.id, checkId: check.id, projectId: null, dependencyId: null, position: 0, showUptimeBar: true, groupName: 'Shop' });
    const byProject = await createComponent(t, user, page.id, { name: 'Everything', projectId: user.projectId, position: 1 });
    expect(byProject.projectId).toBe(user.projectId);
    // A new target replaces the old one.
    const moved = expectStatus(await t.request<Component>('PATCH', `${path}/${byCheck.id}`, { ...as, body: { projectId: user.projectId, description: 'All of it' } }), 200);
    expect(moved).toMatchObject({ checkId: null, projectId: user.projectId, description: 'All of it' });
    expectError(await t.request('PATCH', `${path}/${byCheck.id}`, { ...as, body: { checkId: foreignCheck.id } }), 404);
    expectError(await t.request('PATCH', `${path}/${byCheck.id}`, { ...as, body: { checkId: check.id, projectId: user.projectId } }), 400);
    // Another workspace cannot reach the page's components at all.
    expectError(await t.request('POST', path, { token: other.token, body: { name: 'x', checkId: foreignCheck.id } }), 404);
    expectError(await t.request('DELETE', `${path}/${byCheck.id}`, { token: other.token }), 404);
    expectStatus(await t.request('DELETE', `${path}/${byCheck.id}`, as), 204);
    expectError(await t.request('DELETE', `${path}/${byCheck.id}`, as), 404);
    // The check itself is unaffected.
    expectStatus(await t.request('GET', `/checks/${check.id}`, as), 200);
  });

  it('reorders with the complete list only (incomplete, repeated or foreign: 400)', async () => {
    const page = await createPage(t, user);
    const a = (await checkComponent(t, user, page.id, { name: 'A' })).component;
    const b = (await checkComponent(t, user, page.id, { name: 'B' })).component;
    const c = (await checkComponent(t, user, page.id, { name: 'C' })).component;
    const path = `/status-pages/${page.id}/components/reorder`;
    const as = { token: user.token };
    expectError(await t.request('PATCH', path, { ...as, body: { componentIds: [c.id, a.id] } }), 400);
    expectError(await t.request('PATCH', path, { ...as, body: { componentIds: [c.id, a.id, a.id] } }), 400);
    expectError(await t.request('PATCH', path, { ...as, body: { componentIds: [c.id, a.id, b.id, 999_999] } }), 400);
    expectError(await t.request('PATCH', path, { ...as, body: {} }), 400);
    const reordered = expectStatus(await t.request<Component[]>('PATCH', path, { ...as, body: { componentIds: [c.id, a.id, b.id] } }), 200);
    expect(reordered.map((x) => [x.id, x.position])).toEqual([
      [c.id, 0],
      [a.id, 1],
      [b.id, 2],
    ]);
    const listed = expectStatus(await t.request<Component[]>('GET', `/status-pages/${page.id}/components`, as), 200);
    expect(listed.map((x) => x.name)).toEqual(['C', 'A', 'B']);
    expectError(await t.request('PATCH', path, { token: other.token, body: { componentIds: [c.id, a.id, b.id] } }), 404);
  });
});
