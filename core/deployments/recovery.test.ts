import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import type { Page } from '../http/pagination.js';
import { WINDOW_DUE_SHARD } from '../maintenance/reconcile.js';
import { windowEffects } from '../windows/holds.js';
import { createJob, jobNow, member, ok, ping, session, sweep, v1, type User } from '../../test/support/windows.js';
import { DEPLOYMENT_DUE_SHARD } from './reconcile.js';
import type { DeploymentView } from './schema.js';

let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext();
  user = await member(t, 'survivor');
});

const project = async (): Promise<User> => ({ ...user, projectId: ok(await v1<{ id: number }>(t, user.key, 'POST', '/projects', { name: 'svc' }), 201).id });
const held = async (projectId: number) => (await windowEffects(t.deps, { workspaceId: user.workspaceId, projectId }, t.clock.now())).deploymentActive;
const stored = async (deploymentId: number) => (await t.deps.store.entities.deployment.get({ deploymentId }).go({ consistent: true })).data;

/** What a request that died right after its first write leaves behind: the item, due now, no effects. */
async function halfOpened(projectId: number, extra: Record<string, unknown> = {}) {
  const iso = t.clock.now().toISOString();
  const deploymentId = await t.deps.store.nextId('deployment');
  await t.deps.store.entities.deployment
    .create({
      deploymentId,
      workspaceId: user.workspaceId,
      projectId,
      status: 'ACTIVE',
      autoPause: true,
      autoPausedCheckIds: [],
      startedAt: iso,
      dueShard: DEPLOYMENT_DUE_SHARD,
      dueAt: iso,
      createdAt: iso,
      updatedAt: iso,
      ...extra,
    })
    .go();
  return deploymentId;
}

describe('the sweep finishes what a crashed request left half done', () => {
  it('applies the start effects of a deployment whose request died after writing it', async () => {
    const owner = await project();
    const job = await createJob(t, owner);
    await ping(t, job);
    const id = await halfOpened(owner.projectId);
    expect(await held(owner.projectId)).toBe(false);
    await sweep(t);
    expect(await held(owner.projectId)).toBe(true);
    expect((await jobNow(t, user, job)).status).toBe('PAUSED');
    expect(await stored(id)).toMatchObject({ autoPausedCheckIds: [job.id], startEffectsAt: t.clock.now().toISOString() });
    expect((await stored(id))?.dueAt).toBeUndefined();
  });

  it('resumes the checks of a deployment whose end was recorded but not carried out', async () => {
    const owner = await project();
    const job = await createJob(t, owner);
    await ping(t, job);
    const d = ok(await v1<DeploymentView>(t, user.key, 'POST', '/deployments', { projectId: owner.projectId }), 201);
    expect((await jobNow(t, user, job)).status).toBe('PAUSED');
    const iso = t.clock.now().toISOString();
    await t.deps.store.entities.deployment.patch({ deploymentId: d.id }).set({ status: 'ENDED', endedAt: iso, dueShard: DEPLOYMENT_DUE_SHARD, dueAt: iso }).go();
    await sweep(t);
    expect((await jobNow(t, user, job)).status).toBe('RESUMED');
    expect(await held(owner.projectId)).toBe(false);
    expect((await stored(d.id))?.endEffectsAt).toBe(iso);
  });

  it('concurrent ends make one end: one resume and one DEPLOYMENT ended signal per check', async () => {
    const owner = await project();
    const job = await createJob(t, owner);
    await ping(t, job);
    const d = ok(await v1<DeploymentView>(t, user.key, 'POST', '/deployments', { projectId: owner.projectId }), 201);
    t.clock.advance(60_000);
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => v1<DeploymentView>(t, user.key, 'POST', `/deployments/${d.id}/end`)));
    expect([a?.status, b?.status, c?.status]).toEqual([200, 200, 200]);
    expect(new Set([a?.body.endedAt, b?.body.endedAt, c?.body.endedAt]).size).toBe(1);
    expect((await jobNow(t, user, job)).status).toBe('RESUMED');
    const signals = ok(await t.request<Page<{ type: string; details: { event?: string } | null }>>('GET', `/signals/token/${job.token}`, { token: await session(t, user) }), 200);
    expect(signals.items.filter((s) => s.type === 'DEPLOYMENT').map((s) => s.details?.event)).toEqual(['ended', 'started']);
  });

  it('writes the holds of a maintenance window whose request died after writing it', async () => {
    const owner = await project();
    const iso = t.clock.now().toISOString();
    const maintenanceWindowId = await t.deps.store.nextId('maintenanceWindow');
    await t.deps.store.entities.maintenanceWindow
      .create({
        maintenanceWindowId,
        workspaceId: user.workspaceId,
        name: 'half written',
        startAt: iso,
        endAt: new Date(t.clock.now().getTime() + 3_600_000).toISOString(),
        projectIds: [owner.projectId],
        suppressAlerts: true,
        suppressIncidents: true,
        autoPublishToStatusPage: false,
        timezone: 'UTC',
        state: 'SCHEDULED',
        revision: 0,
        dueShard: WINDOW_DUE_SHARD,
        dueAt: iso,
        createdAt: iso,
        updatedAt: iso,
      })
      .go();
    const effects = () => windowEffects(t.deps, { workspaceId: user.workspaceId, projectId: owner.projectId }, t.clock.now());
    expect((await effects()).suppressIncidents).toBe(false);
    await sweep(t);
    expect(await effects()).toMatchObject({ suppressIncidents: true, suppressAlerts: true });
    expect((await t.deps.store.entities.maintenanceWindow.get({ maintenanceWindowId }).go()).data).toMatchObject({ state: 'ACTIVE', revision: 1 });
  });
});
