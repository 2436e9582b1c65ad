import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hears } from '../ports/index.js';
import { checkTopic, workspaceChannel } from '../signals/streamEvents.js';
import { signalSubscriptions } from '../signals/streamScope.js';

const id = fc.integer({ min: 1, max: 6 });

describe('stream scoping', () => {
  it('hears exactly what the SSE path let through before channels and topics: own workspaces, and the one check if filtered', () => {
    fc.assert(
      fc.property(fc.uniqueArray(id, { maxLength: 4 }), fc.option(id, { nil: undefined }), id, id, (workspaceIds, only, workspaceId, checkId) => {
        // A filter names one check, of one of the user's workspaces (loadCheckByToken made sure).
        const scoped = only === undefined ? workspaceIds : workspaceIds.slice(0, 1);
        const event = { channel: workspaceChannel(workspaceId), topic: checkTopic(checkId), type: 'signal', data: { workspaceId, checkId } };
        const before = new Set(scoped).has(workspaceId) && (only === undefined || checkId === only);
        expect(hears(signalSubscriptions(scoped, only), event)).toBe(before);
      }),
    );
  });

  it('never lets an event of another channel through, whatever its topic', () => {
    fc.assert(
      fc.property(fc.uniqueArray(id, { minLength: 1, maxLength: 4 }), fc.option(id, { nil: undefined }), fc.string(), (workspaceIds, only, topic) => {
        const other = Math.max(...workspaceIds) + 1;
        expect(hears(signalSubscriptions(workspaceIds, only), { channel: workspaceChannel(other), topic, type: 'signal', data: null })).toBe(false);
      }),
    );
  });
});
