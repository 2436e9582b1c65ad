import type { TestContext } from '../harness.js';
import { createCheck, expectStatus, inboundBody, type User } from './checks.js';
import type { Component, StatusPage } from '../../core/statuspages/schema.js';

/** Shared steps of the status page tests (not a test file itself). */
export { expectStatus, type User };

let slugCounter = 0;
export const uniqueSlug = (prefix = 'page'): string => `${prefix}-${Date.now().toString(36)}-${++slugCounter}`;

export async function createPage(t: TestContext, user: User, extra: Record<string, unknown> = {}): Promise<StatusPage> {
  const res = await t.request<StatusPage>('POST', '/status-pages', { token: user.token, body: { name: 'Acme status', slug: uniqueSlug(), ...extra } });
  return expectStatus(res, 201);
}

export async function createComponent(t: TestContext, user: User, pageId: number, body: Record<string, unknown>): Promise<Component> {
  return expectStatus(await t.request<Component>('POST', `/status-pages/${pageId}/components`, { token: user.token, body: { name: 'API', ...body } }), 201);
}

export async function checkComponent(t: TestContext, user: User, pageId: number, extra: Record<string, unknown> = {}) {
  const check = await createCheck(t, user, inboundBody(user, { name: `internal-secret-check-${++slugCounter}` }));
  const component = await createComponent(t, user, pageId, { checkId: check.id, ...extra });
  return { check, component };
}

/** Moves a check's status the way the ingest path does: a status change on the incidents queue, drained. */
export async function changeStatus(t: TestContext, check: { id: number }, user: User, from: string, to: string): Promise<void> {
  await t.deps.queue.publish('incidents', [
    { type: 'check.status_changed', checkId: check.id, workspaceId: user.workspaceId, projectId: user.projectId, from, to, at: t.clock.now().toISOString(), cause: 'SWEEP' },
  ]);
  const stored = await t.deps.store.entities.checkRef.get({ checkId: check.id }).go();
  if (stored.data)
    await t.deps.store.entities.check
      .patch({ token: stored.data.token })
      .set({ status: to as 'OK' })
      .go();
  await t.deps.queue.drain();
}

/**
 * A fake DNS for custom domains (tests never touch real DNS): records the test sets and removes,
 * ENODATA for anything else, as node:dns/promises answers a name without such a record.
 */
export function fakeDns() {
  const txt = new Map<string, string[][]>();
  const cname = new Map<string, string[]>();
  const lookups: string[] = [];
  const absent = () => Object.assign(new Error('queryTxt ENODATA'), { code: 'ENODATA' });
  return {
    txt,
    cname,
    lookups,
    resolver: {
      async resolveTxt(hostname: string): Promise<string[][]> {
        lookups.push(`TXT ${hostname}`);
        const found = txt.get(hostname);
        if (!found) throw absent();
        return found;
      },
      async resolveCname(hostname: string): Promise<string[]> {
        lookups.push(`CNAME ${hostname}`);
        const found = cname.get(hostname);
        if (!found) throw absent();
        return found;
      },
    },
  };
}
