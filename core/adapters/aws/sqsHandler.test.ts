import { describe, expect, it } from 'vitest';
import type { QueueMessage } from '../../ports/index.js';
import { sqsHandler } from './sqsHandler.js';

const record = (messageId: string, body: string) => ({ messageId, body });

describe('sqsHandler', () => {
  it('maps records to QueueMessages and reports the consumer failures as batchItemFailures', async () => {
    const seen: QueueMessage[] = [];
    const handler = sqsHandler(async (messages) => {
      seen.push(...messages);
      return { failedIds: ['m2'] };
    });
    const response = await handler({
      Records: [record('m1', '{"type":"check.status_changed","checkId":1}'), record('m2', '{"checkId":2}')],
    });
    expect(seen).toEqual([
      { id: 'm1', body: { type: 'check.status_changed', checkId: 1 } },
      { id: 'm2', body: { checkId: 2 } },
    ]);
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }] });
  });

  it('returns no failures when every message succeeded', async () => {
    const handler = sqsHandler(async () => ({ failedIds: [] }));
    expect(await handler({ Records: [record('m1', '1')] })).toEqual({ batchItemFailures: [] });
  });

  it('fails a body that is not JSON without handing it to the consumer', async () => {
    const seen: string[] = [];
    const handler = sqsHandler(async (messages) => {
      seen.push(...messages.map((m) => m.id));
      return { failedIds: [] };
    });
    const response = await handler({ Records: [record('bad', '{not json'), record('good', '{}')] });
    expect(seen).toEqual(['good']);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'bad' }]);
  });

  it('fails the whole batch when the consumer throws', async () => {
    const handler = sqsHandler(async () => {
      throw new Error('store unavailable');
    });
    const response = await handler({ Records: [record('a', '{}'), record('b', '{}')] });
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['a', 'b']);
  });

  it('does not call the consumer for an empty or all-unreadable batch', async () => {
    let calls = 0;
    const handler = sqsHandler(async () => {
      calls++;
      return { failedIds: [] };
    });
    await handler({ Records: [] });
    await handler({ Records: [record('x', '')] });
    expect(calls).toBe(0);
  });
});
