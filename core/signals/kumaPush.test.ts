import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { signalsOf } from '../../test/support/signals.js';
import { createSignalApp } from '../signalApp.js';

const TOKEN = 'Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz2Xc';

// The ping Lambda's app serves Kuma's push path as the full app does (core/imports/kuma.test.ts).
describe('/api/push/<token> on the ping Lambda app', () => {
  let t: TestContext;
  let jobId: number;
  beforeAll(async () => {
    t = await createTestContext();
    const user = await t.signup('push');
    const key = await t.apiKey(user);
    const imported = await t.request<{ created: { id: number }[] }>('POST', '/v1/import/uptime-kuma', {
      token: key,
      body: { monitorList: [{ id: 1, name: 'Queue worker', type: 'push', interval: 60, pushToken: TOKEN }] },
    });
    expect(imported.status, imported.text).toBe(200);
    jobId = imported.body.created[0]?.id ?? 0;
  });

  it('records up and down pushes and answers {ok: true}; an unknown token gets Kuma’s 404', async () => {
    const app = createSignalApp(t.deps);
    const up = await app.request(`/api/push/${TOKEN}?status=up&msg=OK&ping=8`);
    expect([up.status, await up.json()]).toEqual([200, { ok: true }]);
    t.clock.advanceSeconds(2);
    const down = await app.request(`/api/push/${TOKEN}?status=down&msg=stuck`, { method: 'POST' });
    expect([down.status, await down.json()]).toEqual([200, { ok: true }]);
    expect((await signalsOf(t, jobId)).map((s) => [s.type, s.payload]).sort()).toEqual([
      ['FAIL', 'stuck'],
      ['SUCCESS', 'OK\nping: 8'],
    ]);
    const unknown = await app.request('/api/push/UnknownToken000000');
    expect([unknown.status, await unknown.json()]).toEqual([404, { ok: false, msg: 'Monitor not found or not active.' }]);
  });
});
