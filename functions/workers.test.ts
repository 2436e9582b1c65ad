import { ulid } from 'ulid';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { SqsBatchResponse, SqsEvent } from '../core/adapters/aws/sqsHandler.js';
import { createDynamoClient, ensureTable } from '../core/store/client.js';

type SweepReport = { at: string; steps: { name: string; ok: boolean }[] };

describe('the queue and schedule entry points', () => {
  let incidentWorker: (event: SqsEvent) => Promise<SqsBatchResponse>;
  let alertWorker: (event: SqsEvent) => Promise<SqsBatchResponse>;
  let sweep: () => Promise<SweepReport>;
  let probe: (event: unknown) => Promise<unknown>;

  beforeAll(async () => {
    // As on a cold start: Deps come from the environment when the module loads.
    const table = `t_${ulid()}`;
    process.env.VIGIL_TABLE_NAME = table;
    process.env.VIGIL_DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
    await ensureTable(createDynamoClient({ endpoint: inject('dynamoEndpoint') }), table);
    incidentWorker = (await import('./incidentWorker.js')).handler;
    alertWorker = (await import('./alertWorker.js')).handler;
    sweep = (await import('./sweep.js')).handler;
    probe = (await import('./probe.js')).handler;
  });

  it('incidentWorker answers an SQS batch with the ids to retry, and only those', async () => {
    const gone = { type: 'check.status_changed', checkId: 999_999, workspaceId: 1, projectId: null, from: 'OK', to: 'DOWN', at: '2026-03-01T12:00:00.000Z', cause: 'SWEEP' };
    const response = await incidentWorker({
      Records: [
        { messageId: 'about-a-deleted-check', body: JSON.stringify(gone) },
        { messageId: 'not-json', body: '{' },
      ],
    });
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'not-json' }] });
  });

  it('alertWorker drops a message about an incident that does not exist and reports the non-JSON one', async () => {
    const gone = { type: 'incident.opened', incidentId: 999_999, workspaceId: 1, projectId: null, checkId: null, severity: 'P1', at: '2026-03-01T12:00:00.000Z' };
    const response = await alertWorker({
      Records: [
        { messageId: 'about-a-missing-incident', body: JSON.stringify(gone) },
        { messageId: 'not-json', body: 'incident opened' },
      ],
    });
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'not-json' }] });
  });

  it('sweep runs every step of one evaluator sweep', async () => {
    const report = await sweep();
    expect(report.steps.length).toBeGreaterThan(0);
    expect(report.steps.filter((step) => !step.ok)).toEqual([]);
  });

  it('probe takes the schedule payload as its event; no check, no request', async () => {
    expect(await probe({ checkId: 999_999, region: 'eu-west-1' })).toEqual({ ran: false, reason: 'CHECK_NOT_FOUND' });
    expect(await probe({ checkId: 'x' })).toBeNull();
  });
});
