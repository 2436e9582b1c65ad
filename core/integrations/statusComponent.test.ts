import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { LONG_SESSIONS } from '../../test/support/checks.js';
import { alertmanagerNotification, createIntegration, postIntake, type CreatedIntegration } from '../../test/support/integrations.js';
import { createComponent, createPage, expectStatus, type User } from '../../test/support/statuspages.js';
import type { PublicPage } from '../statuspages/public/view.js';
import type { Component } from '../statuspages/schema.js';

let t: TestContext;
let user: User;
let other: User;
let ip = 0;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('hub-pages');
  other = await t.signup('hub-stranger');
});
beforeEach(() => t.clock.advanceSeconds(61));

async function send(integration: CreatedIntegration, body: unknown): Promise<void> {
  const res = await postIntake(t, integration, body);
  expect(res.status, res.text).toBe(200);
  await t.deps.queue.drain();
}

async function statusOf(slug: string, componentId: number): Promise<string | undefined> {
  const view = expectStatus(await t.request<PublicPage>('GET', `/public/status/${slug}`, { headers: { 'x-test-ip': `198.51.100.${(++ip % 250) + 1}` } }), 200);
  return view.components.find((c) => c.id === componentId)?.status;
}

const group = (key: string, severity: string, status: 'firing' | 'resolved' = 'firing') =>
  alertmanagerNotification({
    groupKey: key,
    status,
    commonLabels: { alertname: key, severity },
    alerts: [{ labels: { alertname: key, severity }, startsAt: t.clock.now().toISOString(), ...(status === 'resolved' ? { endsAt: t.clock.now().toISOString() } : {}) }],
  });

describe('a status page component that follows an integration', () => {
  it('takes only an integration of the page’s workspace (foreign or unknown: 404, nothing created)', async () => {
    const page = await createPage(t, user);
    const mine = await createIntegration(t, user);
    const foreign = await createIntegration(t, other);
    const path = `/status-pages/${page.id}/components`;
    expectError(await t.request('POST', path, { token: user.token, body: { name: 'Foreign', integrationId: foreign.id } }), 404);
    expectError(await t.request('POST', path, { token: user.token, body: { name: 'Missing', integrationId: 999_999 } }), 404);
    expectError(await t.request('POST', path, { token: user.token, body: { name: 'Two', integrationId: mine.id, projectId: user.projectId } }), 400);
    const component = await createComponent(t, user, page.id, { name: 'Alerts', integrationId: mine.id });
    expect(component).toMatchObject({ integrationId: mine.id, checkId: null, projectId: null, dependencyId: null });
    expectError(await t.request('PATCH', `${path}/${component.id}`, { token: user.token, body: { integrationId: foreign.id } }), 404);
    const listed = expectStatus(await t.request<Component[]>('GET', path, { token: user.token }), 200);
    expect(listed.map((c) => [c.name, c.integrationId])).toEqual([['Alerts', mine.id]]);
    // Retargeting to a project drops the integration.
    const moved = expectStatus(await t.request<Component>('PATCH', `${path}/${component.id}`, { token: user.token, body: { projectId: user.projectId } }), 200);
    expect(moved).toMatchObject({ integrationId: null, projectId: user.projectId });
  });

  it('moves with the integration’s open incidents, by their worst severity, and back when they resolve', async () => {
    const page = await createPage(t, user);
    const integration = await createIntegration(t, user);
    const unrelated = await createIntegration(t, user, { name: 'Other source' });
    const component = await createComponent(t, user, page.id, { name: 'Alerts', integrationId: integration.id });
    expect(await statusOf(page.slug, component.id)).toBe('OPERATIONAL');

    await send(unrelated, group('elsewhere', 'critical'));
    expect(await statusOf(page.slug, component.id)).toBe('OPERATIONAL');

    await send(integration, group('slow', 'warning'));
    expect(await statusOf(page.slug, component.id)).toBe('DEGRADED_PERFORMANCE');
    await send(integration, group('down', 'critical'));
    expect(await statusOf(page.slug, component.id)).toBe('MAJOR_OUTAGE');

    t.clock.advanceSeconds(60);
    await send(integration, group('down', 'critical', 'resolved'));
    expect(await statusOf(page.slug, component.id)).toBe('DEGRADED_PERFORMANCE');
    await send(integration, group('slow', 'warning', 'resolved'));
    expect(await statusOf(page.slug, component.id)).toBe('OPERATIONAL');
  });

  it('goes back to operational when a person resolves the incident from the dashboard', async () => {
    const page = await createPage(t, user);
    const integration = await createIntegration(t, user);
    const component = await createComponent(t, user, page.id, { name: 'Alerts', integrationId: integration.id });
    await send(integration, group('manual', 'critical'));
    expect(await statusOf(page.slug, component.id)).toBe('MAJOR_OUTAGE');
    const incidents = expectStatus(
      await t.request<{ items: { id: number; integrationId: number | null }[] }>('GET', `/incidents?workspaceId=${user.workspaceId}&limit=100`, { token: user.token }),
      200,
    );
    const opened = incidents.items.find((i) => i.integrationId === integration.id);
    expectStatus(await t.request('POST', `/incidents/${opened?.id ?? 0}/resolve`, { token: user.token, body: {} }), 200);
    await t.deps.queue.drain();
    expect(await statusOf(page.slug, component.id)).toBe('OPERATIONAL');
  });
});
