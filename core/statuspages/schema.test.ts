import { describe, expect, it } from 'vitest';
import { customDomainProblem, normalizeDomain, sameHost } from './domain.js';
import {
  AnnouncementCreate,
  AnnouncementCreateV1,
  AnnouncementEntryCreateV1,
  AnnouncementListQuery,
  ComponentCreate,
  ComponentReorder,
  ComponentUpdate,
  StatusPageCreate,
  StatusPageUpdate,
  passwordProblem,
  reorderProblem,
  slugShape,
} from './schema.js';

const page = (extra: Record<string, unknown> = {}) => StatusPageCreate.safeParse({ name: 'Acme', slug: 'acme', ...extra });
const issuePaths = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) => result.error?.issues.map((i) => i.path.join('.')) ?? [];

describe('status page schema', () => {
  it('fills the spec defaults', () => {
    expect(page().data).toEqual({
      name: 'Acme',
      slug: 'acme',
      visibility: 'PUBLIC',
      showUptimeHistory: true,
      uptimeHistoryDays: 90,
      showIncidentHistory: true,
      enabled: true,
    });
  });

  it('takes slugs of lowercase letters, digits and hyphens up to 128, and no reserved one', () => {
    for (const slug of ['acme', 'acme-status-2', 'a', 'x'.repeat(128)]) expect(page({ slug }).success).toBe(true);
    for (const slug of ['', 'Acme', 'acme_status', 'acme.status', 'acme status', 'x'.repeat(129), 'café', 'api', 'admin', 'status', 'www', 'assets', 'static', 'mcp', 'public']) {
      expect(page({ slug }).success, slug).toBe(false);
    }
  });

  it('classifies any string for check-slug without failing', () => {
    expect(slugShape('acme')).toBe('OK');
    expect(slugShape('public')).toBe('RESERVED');
    expect(slugShape('Not A Slug!')).toBe('MALFORMED');
    expect(slugShape('')).toBe('MALFORMED');
  });

  it('requires a password for PASSWORD_PROTECTED, at create and when a patch makes a page protected', () => {
    expect(issuePaths(page({ visibility: 'PASSWORD_PROTECTED' }))).toEqual(['password']);
    expect(page({ visibility: 'PASSWORD_PROTECTED', password: 'long enough' }).success).toBe(true);
    expect(page({ visibility: 'PRIVATE' }).success).toBe(true);
    expect(page({ visibility: 'SECRET' }).success).toBe(false);
    const patch = StatusPageUpdate.parse({ visibility: 'PASSWORD_PROTECTED' });
    expect(passwordProblem({ visibility: 'PUBLIC', hasPassword: false }, patch)).toMatch(/Required/);
    expect(passwordProblem({ visibility: 'PUBLIC', hasPassword: true }, patch)).toBeNull();
    expect(passwordProblem({ visibility: 'PUBLIC', hasPassword: false }, { ...patch, password: 'long enough' })).toBeNull();
    expect(StatusPageUpdate.safeParse({ password: null }).success).toBe(false);
  });

  it('bounds every field as the spec does', () => {
    expect(page({ name: 'x'.repeat(256) }).success).toBe(false);
    expect(page({ uptimeHistoryDays: 0 }).success).toBe(false);
    expect(page({ uptimeHistoryDays: 366 }).success).toBe(false);
    expect(page({ uptimeHistoryDays: 365 }).success).toBe(true);
    expect(page({ headerHtml: 'x'.repeat(10_001) }).success).toBe(false);
    expect(page({ footerHtml: 'x'.repeat(10_000) }).success).toBe(true);
    expect(page({ primaryColor: '#0af', backgroundColor: '#00AAFF' }).success).toBe(true);
    for (const color of ['red', '#12', '#1234', '0af', '#0af;background:url(x)', 'rgb(0,0,0)']) expect(page({ primaryColor: color }).success, color).toBe(false);
    expect(page({ logoUrl: 'https://cdn.example.com/logo.png', faviconUrl: null }).success).toBe(true);
    for (const url of ['http://cdn.example.com/logo.png', 'javascript:alert(1)', 'data:image/png;base64,AAAA', '//cdn.example.com/x.png', 'logo.png']) {
      expect(page({ logoUrl: url }).success, url).toBe(false);
    }
    expect(page({ unknownField: 1 }).success).toBe(false);
    expect(page({ workspaceId: 0 }).success).toBe(false);
  });

  it('normalises and validates customDomain', () => {
    expect(page({ customDomain: ' Status.Example.COM. ' }).data?.customDomain).toBe('status.example.com');
    expect(page({ customDomain: null }).success).toBe(true);
    for (const domain of [
      'https://status.example.com',
      'status.example.com:8443',
      'status.example.com/path',
      'user@status.example.com',
      '127.0.0.1',
      '127.1',
      '0x7f.1',
      '2130706433',
      '[::1]',
      '::1',
      'localhost',
      'app.localhost',
      'intranet',
      '-bad.example.com',
      'bad-.example.com',
      `${'a'.repeat(64)}.example.com`,
      'stätus.example.com',
      '',
    ]) {
      expect(page({ customDomain: domain }).success, domain).toBe(false);
    }
    expect(page({ customDomain: `${'a.'.repeat(126)}com` }).success).toBe(false);
    expect(customDomainProblem('vigil.example.com', ['https://x', 'Vigil.Example.com.'])).toMatch(/this Vigil install/);
    expect(customDomainProblem('xn--sttus-gra.example.com')).toBeNull();
    expect(normalizeDomain('A.B.')).toBe('a.b');
    expect(sameHost('Pages.Vigil.Example.', 'pages.vigil.example')).toBe(true);
  });
});

describe('component schema', () => {
  const component = (extra: Record<string, unknown>) => ComponentCreate.safeParse({ name: 'API', ...extra });

  it('takes exactly one of checkId, projectId, dependencyId', () => {
    expect(component({ checkId: 1 }).data).toEqual({ name: 'API', checkId: 1, position: 0, showUptimeBar: true });
    expect(component({ projectId: 2 }).success).toBe(true);
    expect(component({ dependencyId: 3 }).success).toBe(true);
    expect(component({}).success).toBe(false);
    expect(component({ checkId: 1, projectId: 2 }).success).toBe(false);
    expect(component({ checkId: 1, projectId: 2, dependencyId: 3 }).success).toBe(false);
    expect(ComponentUpdate.safeParse({ name: 'x' }).success).toBe(true);
    expect(ComponentUpdate.safeParse({ projectId: 2 }).success).toBe(true);
    expect(ComponentUpdate.safeParse({ checkId: 1, dependencyId: 3 }).success).toBe(false);
  });

  it('bounds name and groupName', () => {
    expect(component({ checkId: 1, name: 'x'.repeat(256) }).success).toBe(false);
    expect(component({ checkId: 1, groupName: 'x'.repeat(129) }).success).toBe(false);
    expect(component({ checkId: 1, groupName: 'Core' }).success).toBe(true);
    expect(component({ checkId: 1, position: -1 }).success).toBe(false);
  });

  it('reorders only with the complete list, each id once', () => {
    expect(ComponentReorder.safeParse({ componentIds: [1, 1] }).success).toBe(false);
    expect(reorderProblem([1, 2, 3], [3, 1, 2])).toBeNull();
    expect(reorderProblem([1, 2, 3], [3, 1])).toMatch(/every component/);
    expect(reorderProblem([1, 2, 3], [3, 1, 2, 9])).toMatch(/not a component/);
    expect(reorderProblem([1, 2, 3], [3, 1, 1])).toMatch(/repeat/);
  });
});

describe('announcement schema', () => {
  it('takes scheduledFor and scheduledUntil together, the end after the start', () => {
    const base = { title: 'Upgrade', body: 'We upgrade the database.' };
    expect(AnnouncementCreate.parse({ ...base, scheduledFor: '2026-07-01T10:00:00+02:00', scheduledUntil: '2026-07-01T09:00:00Z' })).toMatchObject({
      scheduledFor: '2026-07-01T08:00:00.000Z',
      scheduledUntil: '2026-07-01T09:00:00.000Z',
      componentIds: [],
    });
    expect(issuePaths(AnnouncementCreate.safeParse({ ...base, scheduledFor: '2026-07-01T08:00:00Z' }))).toEqual(['scheduledUntil']);
    expect(issuePaths(AnnouncementCreate.safeParse({ ...base, scheduledFor: '2026-07-01T08:00:00Z', scheduledUntil: '2026-07-01T08:00:00Z' }))).toEqual(['scheduledUntil']);
    expect(AnnouncementCreate.safeParse({ ...base, scheduledFor: 'tomorrow', scheduledUntil: '2026-07-01T08:00:00Z' }).success).toBe(false);
  });

  it('bounds title and texts as the spec does, and requires the dashboard body', () => {
    expect(AnnouncementCreate.safeParse({ title: 'x' }).success).toBe(false);
    expect(AnnouncementCreate.safeParse({ title: 'x'.repeat(256), body: 'b' }).success).toBe(false);
    expect(AnnouncementCreate.safeParse({ title: 't', body: 'b'.repeat(5001) }).success).toBe(false);
    expect(AnnouncementCreate.safeParse({ title: 't', body: 'b', impact: 'HUGE' }).success).toBe(false);
    expect(AnnouncementCreate.safeParse({ title: 't', body: 'b', componentIds: [1, 1] }).success).toBe(false);
    expect(AnnouncementCreateV1.safeParse({ title: 't' }).success).toBe(true);
    expect(AnnouncementCreateV1.safeParse({ title: 't', message: 'm'.repeat(5001) }).success).toBe(false);
    expect(AnnouncementCreateV1.safeParse({ title: 't', scheduledFor: '2026-07-01T08:00:00Z' }).success).toBe(false);
    expect(AnnouncementEntryCreateV1.safeParse({ message: 'm' }).success).toBe(false);
    expect(AnnouncementEntryCreateV1.safeParse({ status: 'RESOLVED', message: '' }).success).toBe(false);
    expect(AnnouncementEntryCreateV1.safeParse({ status: 'RESOLVED', message: 'Fixed' }).success).toBe(true);
  });

  it('reads the list filter case-insensitively with take/skip defaults', () => {
    expect(AnnouncementListQuery.parse({ status: 'OPEN' })).toEqual({ status: 'open', take: 20, skip: 0 });
    expect(AnnouncementListQuery.safeParse({ status: 'closed' }).success).toBe(false);
  });
});
