import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseVigilFile } from './macFile.js';
import { jobBody, redactCheck, Refs } from './macMapping.js';
import { HIDDEN, resolveReferences, type VigilFile } from './macModel.js';
import { changedFields, formatPlan, hasChanges, planChanges } from './macPlan.js';

const job = (slug: string, extra: Record<string, unknown> = {}) => ({ slug, name: slug, project: 'Default', intervalSeconds: 60, paused: false, ...extra });

describe('planChanges', () => {
  const current: VigilFile = { version: 1, projects: [{ name: 'Default' }], jobs: [job('a'), job('b', { graceSeconds: 300 })] };

  it('finds nothing to do when the file matches, and creates what the workspace lacks', () => {
    const same = planChanges({ version: 1, jobs: [job('a'), job('b', { graceSeconds: 300 })] }, current, { prune: false });
    expect(same).toEqual({ changes: [], unchanged: 2 });
    expect(hasChanges(same)).toBe(false);
    const more = planChanges({ version: 1, jobs: [job('a'), job('b'), job('c')] }, current, { prune: false });
    expect(more.changes.map((c) => [c.action, c.identity])).toEqual([['create', 'slug:c']]);
  });

  it('names the changed fields, and leaves alone a field the file does not state', () => {
    const plan = planChanges({ version: 1, jobs: [job('a', { intervalSeconds: 120 }), { slug: 'b', name: 'b', project: 'Default' }] }, current, { prune: false });
    expect(plan.changes).toEqual([expect.objectContaining({ action: 'update', identity: 'slug:a', fields: ['intervalSeconds'] })]);
    expect(plan.unchanged).toBe(1);
  });

  it('reports items the file leaves out as drift, and turns them into deletes only with prune, after every create', () => {
    const desired: VigilFile = { version: 1, projects: [{ name: 'Default' }, { name: 'New' }], jobs: [job('a')] };
    const drift = planChanges(desired, current, { prune: false });
    expect(drift.changes.map((c) => `${c.action} ${c.identity}`)).toEqual(['create name:New', 'drift slug:b']);
    expect(hasChanges({ changes: drift.changes.filter((c) => c.action === 'drift'), unchanged: 0 })).toBe(false);
    const pruned = planChanges({ version: 1, projects: [{ name: 'New' }], jobs: [] }, current, { prune: true });
    expect(pruned.changes.map((c) => `${c.action} ${c.identity}`)).toEqual(['create name:New', 'delete slug:a', 'delete slug:b', 'delete name:Default']);
    expect(formatPlan(pruned)).toContain('  - delete job a\n');
  });

  it('manages only the sections the file has', () => {
    expect(planChanges({ version: 1, projects: [{ name: 'Default' }] }, current, { prune: true }).changes).toEqual([]);
  });

  it('matches a slug-less item by name, and refuses a file naming one item twice', () => {
    const named: VigilFile = { version: 1, jobs: [{ name: 'legacy', project: 'Default' }] };
    expect(planChanges({ version: 1, jobs: [{ slug: 'legacy', name: 'legacy', project: 'Default' }] }, named, { prune: false }).changes).toEqual([
      expect.objectContaining({ action: 'update', fields: ['slug'] }),
    ]);
    expect(() => planChanges({ version: 1, jobs: [job('a'), job('a')] }, current, { prune: false })).toThrow('two items are named a');
  });
});

describe('changedFields', () => {
  it('compares nested objects by the fields stated, a header map whole, and never a value Vigil hides', () => {
    const current = { config: { url: 'https://a', timeoutMs: 5000, customHeaders: { a: '1', b: '2' } }, token: HIDDEN };
    expect(changedFields({ config: { url: 'https://a' }, token: 'anything' }, current)).toEqual([]);
    expect(changedFields({ config: { customHeaders: { a: '1' } } }, current)).toEqual(['config.customHeaders']);
    expect(changedFields({ projects: ['x', 'y'] }, { projects: ['x'] })).toEqual(['projects']);
    expect(changedFields({ description: null }, {})).toEqual([]);
  });
});

describe('references and mapping', () => {
  it('resolves ${NAME} from the environment and lists every name that is not set', () => {
    expect(resolveReferences({ a: ['x ${ONE} ${TWO}'], b: '${THREE}' }, { ONE: '1' })).toEqual({ value: { a: ['x 1 ${TWO}'], b: '${THREE}' }, missing: ['THREE', 'TWO'] });
  });

  it('writes a check’s header values as references, and a job’s interval as clearing its schedule', () => {
    const check = { slug: 'web', name: 'Web', config: { url: 'https://a', customHeaders: { 'X-Api-Key': 'k3y' } } };
    expect(redactCheck(check)).toEqual({ ...check, config: { url: 'https://a', customHeaders: { 'X-Api-Key': '${VIGIL_CHECK_WEB_HEADER_X_API_KEY}' } } });
    const refs = new Refs();
    refs.add('project', 'Default', 7);
    expect(jobBody({ name: 'j', project: 'Default', intervalSeconds: 60 }, refs)).toEqual({ name: 'j', intervalSeconds: 60, projectId: 7, schedule: null, timezone: null });
    expect(jobBody({ name: 'j', schedule: '@daily' }, refs)).toEqual({ name: 'j', schedule: '@daily', intervalSeconds: null });
  });
});

describe('parseVigilFile', () => {
  it('gives each schema error the line and column of the field', () => {
    const parsed = parseVigilFile('version: 1\nprojects:\n  - name: ""\n    owner: me\nmaintenanceWindows:\n  - name: w\n    endAt: tomorrow\n');
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.map((e) => `${e.line}:${e.column} ${e.path}`)).toEqual(['3:11 projects.0.name', '4:5 projects.0.owner', '7:12 maintenanceWindows.0.endAt']);
  });

  it('accepts the example of docs/guide/monitoring-as-code.md', () => {
    const guide = readFileSync(new URL('../../docs/guide/monitoring-as-code.md', import.meta.url), 'utf8');
    const example = /## The file\n\n```yaml\n([\s\S]*?)```/.exec(guide)?.[1] ?? '';
    expect(example).toContain('statusPages:');
    expect(parseVigilFile(example)).toMatchObject({ ok: true });
  });

  it('accepts what export writes', () => {
    expect(parseVigilFile('# yaml-language-server: $schema=x\nversion: 1\njobs:\n  - slug: a\n    name: A\n    project: Default\n    schedule: "@daily"\n')).toEqual({
      ok: true,
      file: { version: 1, jobs: [{ slug: 'a', name: 'A', project: 'Default', schedule: '@daily' }] },
    });
  });
});
