import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { LONG_SESSIONS, freshRateWindow } from '../../test/support/checks.js';
import { expectStatus, type User } from '../../test/support/statuspages.js';
import { renderMarkdown } from './render/sanitize.js';

let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('previewer');
});
beforeEach(() => freshRateWindow(t));

describe('POST /status-pages/markdown-preview', () => {
  it('renders and sanitises exactly as the public page does', async () => {
    const body = '**Degraded** [status](https://example.com) <script>alert(1)</script><img src="http://x/a.png" onerror="x()"> <a href="javascript:alert(1)">bad</a>';
    const { html } = expectStatus(await t.request<{ html: string }>('POST', '/status-pages/markdown-preview', { token: user.token, body: { body } }), 200);
    expect(html).toBe(renderMarkdown(body).trim());
    expect(html).toContain('<strong>Degraded</strong>');
    expect(html).toContain('rel="nofollow noopener noreferrer"');
    expect(html).not.toMatch(/script|onerror|javascript:|<img/);
  });

  it('refuses an empty or oversized body, unknown fields and a missing session', async () => {
    expectError(await t.request('POST', '/status-pages/markdown-preview', { token: user.token, body: { body: '' } }), 400);
    expectError(await t.request('POST', '/status-pages/markdown-preview', { token: user.token, body: { body: 'x'.repeat(5001) } }), 400);
    expectError(await t.request('POST', '/status-pages/markdown-preview', { token: user.token, body: { body: 'x', extra: 1 } }), 400);
    expectError(await t.request('POST', '/status-pages/markdown-preview', { body: { body: 'x' } }), 401);
  });
});
