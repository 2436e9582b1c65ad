import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import type { DashboardCheck, JobV1 } from './schema.js';
import { LONG_SESSIONS, createCheck, expectStatus, freshRateWindow, inboundBody, outboundBody, type User } from '../../test/support/checks.js';

let t: TestContext;
let user: User;
let key: string;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('dash-slug');
  key = await t.apiKey(user);
});
beforeEach(() => freshRateWindow(t));

const patch = (id: number, body: unknown, who: User = user) => t.request<DashboardCheck>('PATCH', `/checks/${id}`, { token: who.token, body });
const post = (body: unknown, who: User = user) => t.request<DashboardCheck>('POST', '/checks', { token: who.token, body });
const v1 = <T>(method: string, path: string, body?: unknown) => t.request<T>(method, `/v1${path}`, { token: key, ...(body === undefined ? {} : { body }) });

describe('slug on the session API (dashboard create/edit)', () => {
  it('is set on create and is the same address the Integration API uses', async () => {
    const check = await createCheck(t, user, inboundBody(user, { slug: 'nightly-db' }));
    expect(check.slug).toBe('nightly-db');
    expect(expectStatus(await v1<JobV1>('GET', '/jobs/slug:nightly-db'), 200).id).toBe(check.id);
    expect((await createCheck(t, user, inboundBody(user))).slug).toBeNull();
    expect((await createCheck(t, user, outboundBody(user, { slug: 'homepage' }))).slug).toBe('homepage');
  });

  it('changes (freeing the old one), keeps it when not given, and null clears it', async () => {
    const check = await createCheck(t, user, inboundBody(user, { slug: 'first-name' }));
    expect(expectStatus(await patch(check.id, { slug: 'second-name' }), 200).slug).toBe('second-name');
    expect(expectStatus(await patch(check.id, { name: 'renamed' }), 200).slug).toBe('second-name');
    // The old slug is free again, for a check made by the dashboard or by the Integration API.
    expect((await createCheck(t, user, inboundBody(user, { slug: 'first-name' }))).slug).toBe('first-name');
    expect(expectStatus(await patch(check.id, { slug: null }), 200).slug).toBeNull();
    expect(expectStatus(await v1<JobV1>('POST', '/jobs', { name: 'by key', projectId: user.projectId, slug: 'second-name' }), 201).slug).toBe('second-name');
  });

  it('a slug taken in the workspace is the v1 API 409 SLUG_TAKEN and changes nothing; another workspace may use it', async () => {
    const holder = await createCheck(t, user, inboundBody(user, { slug: 'taken' }));
    expectError(await post(inboundBody(user, { slug: 'taken' })), 409, 'SLUG_TAKEN');
    const other = await createCheck(t, user, inboundBody(user, { slug: 'other' }));
    expectError(await patch(other.id, { slug: 'taken', name: 'not applied' }), 409, 'SLUG_TAKEN');
    const after = expectStatus(await t.request<DashboardCheck>('GET', `/checks/${other.id}`, { token: user.token }), 200);
    expect(after).toMatchObject({ slug: 'other', name: other.name });
    // Taken through the Integration API counts the same, and so does the reverse.
    expectError(await v1('POST', '/jobs', { name: 'dup', projectId: user.projectId, slug: 'taken' }), 409, 'SLUG_TAKEN');
    expectStatus(await v1('POST', '/jobs', { name: 'by key', projectId: user.projectId, slug: 'key-made' }), 201);
    expectError(await post(inboundBody(user, { slug: 'key-made' })), 409, 'SLUG_TAKEN');
    const stranger = await t.signup('dash-slug-other');
    expect((await createCheck(t, stranger, inboundBody(stranger, { slug: 'taken' }))).slug).toBe('taken');
    expect(holder.slug).toBe('taken');
  });

  it('a malformed slug is 400 with the field in details, on create and update', async () => {
    const check = await createCheck(t, user, inboundBody(user));
    for (const slug of ['UPPER', 'has space', '', 'a'.repeat(65), 'dots.no', 7]) {
      for (const res of [await post(inboundBody(user, { slug })), await patch(check.id, { slug })]) {
        expectError(res, 400);
        const details = (res.body as unknown as { details?: { path: string }[] }).details ?? [];
        expect(details.map((d) => d.path)).toContain('slug');
      }
    }
  });
});
