import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { choosePolicy, type PolicyLike, type RuleLike } from './choose.js';

const policy = (id: number, priority: number, projectIds: number[] | null, enabled = true): PolicyLike => ({ id, priority, projectIds, enabled });
const rule = (id: number, projectId: number, delayMinutes: number, enabled = true): RuleLike => ({ id, projectId, delayMinutes, enabled });
const channels = [
  { id: 2, enabled: true },
  { id: 1, enabled: true },
  { id: 3, enabled: false },
];

describe('choosePolicy', () => {
  it('takes the matching enabled policy with the lowest priority', () => {
    const choice = choosePolicy(7, [policy(1, 5, null), policy(2, 1, [7, 8]), policy(3, 0, [9]), policy(4, 0, [7], false)], [rule(1, 7, 0)], channels);
    expect(choice).toEqual({ kind: 'policy', policy: policy(2, 1, [7, 8]) });
  });

  it('lets a catch-all policy (projectIds null) win over rules', () => {
    expect(choosePolicy(7, [policy(1, 3, null)], [rule(1, 7, 0)], channels)).toMatchObject({ kind: 'policy', policy: { id: 1 } });
  });

  it('falls back to the project’s enabled legacy rules, by delay', () => {
    const choice = choosePolicy(7, [policy(1, 0, [8])], [rule(1, 7, 30), rule(2, 7, 0), rule(3, 7, 10, false), rule(4, 8, 0), rule(5, 7, 10)], channels);
    expect(choice).toEqual({ kind: 'rules', rules: [rule(2, 7, 0), rule(5, 7, 10), rule(1, 7, 30)] });
  });

  it('falls back to every enabled channel at once', () => {
    expect(choosePolicy(7, [policy(1, 0, [8], true), policy(2, 1, null, false)], [rule(1, 7, 0, false)], channels)).toEqual({
      kind: 'channels',
      channels: [
        { id: 1, enabled: true },
        { id: 2, enabled: true },
      ],
    });
    expect(choosePolicy(7, [], [], [])).toEqual({ kind: 'channels', channels: [] });
  });

  it('property: a chosen policy applies and no applicable policy has a lower priority; rules only when no policy applies', () => {
    const policies = fc.uniqueArray(
      fc.record({
        id: fc.nat(50),
        priority: fc.nat(20),
        enabled: fc.boolean(),
        projectIds: fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 5 }), { minLength: 1 }), { nil: null }),
      }),
      { selector: (p) => p.id },
    );
    const rules = fc.uniqueArray(fc.record({ id: fc.nat(50), projectId: fc.integer({ min: 1, max: 5 }), delayMinutes: fc.nat(60), enabled: fc.boolean() }), {
      selector: (r) => r.id,
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), policies, rules, (projectId, ps, rs) => {
        const applies = (p: PolicyLike) => p.enabled && (p.projectIds === null || p.projectIds.includes(projectId));
        const choice = choosePolicy(projectId, ps, rs, channels);
        if (choice.kind === 'policy') {
          expect(applies(choice.policy)).toBe(true);
          expect(ps.filter(applies).every((p) => p.priority >= choice.policy.priority)).toBe(true);
        } else {
          expect(ps.some(applies)).toBe(false);
          const projectRules = rs.filter((r) => r.enabled && r.projectId === projectId);
          if (choice.kind === 'rules') {
            expect(new Set(choice.rules)).toEqual(new Set(projectRules));
            expect(choice.rules.map((r) => r.delayMinutes)).toEqual([...choice.rules.map((r) => r.delayMinutes)].sort((a, b) => a - b));
          } else expect(projectRules).toEqual([]);
        }
      }),
    );
  });
});
