import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leadingRun, statusSince, type Evidence } from './since.js';

const evidence = fc.array(fc.record({ at: fc.integer({ min: 0, max: 1e12 }).map((ms) => new Date(ms).toISOString()), agrees: fc.constantFrom(true, false, null) }), {
  maxLength: 20,
});

describe('leadingRun', () => {
  it('is the oldest agreeing item before the first disagreement, complete only when a disagreement closes it', () => {
    fc.assert(
      fc.property(evidence, (items: Evidence[]) => {
        const result = leadingRun(items);
        const firstDisagreement = items.findIndex((item) => item.agrees === false);
        const prefix = firstDisagreement === -1 ? items : items.slice(0, firstDisagreement);
        const agreeing = prefix.filter((item) => item.agrees === true);
        if (agreeing.length === 0) {
          expect(result).toBeNull();
          return;
        }
        expect(result).toEqual({ since: agreeing[agreeing.length - 1]?.at, complete: firstDisagreement !== -1 });
      }),
    );
  });
});

describe('statusSince', () => {
  const base = { mode: 'INBOUND' as const, createdAt: 'c', updatedAt: 'u', runs: [], incidentStartedAt: null };

  it('reads a heartbeat DOWN from its FAIL signals, skipping START, exact once the SUSPECT before them is seen', () => {
    const signals = [
      { type: 'FAIL', receivedAt: 't4' },
      { type: 'START', receivedAt: 't3' },
      { type: 'FAIL', receivedAt: 't2' },
      { type: 'SUSPECT', receivedAt: 't1' },
    ];
    expect(statusSince({ ...base, status: 'DOWN', signals })).toEqual({ since: 't2', exact: true, basis: 'signals' });
    expect(statusSince({ ...base, status: 'DOWN', signals: signals.slice(0, 3) })).toEqual({ since: 't2', exact: false, basis: 'signals' });
  });

  it('falls back to the incident, then says it does not know; NEW and PAUSED come from the check itself', () => {
    expect(statusSince({ ...base, status: 'DOWN', signals: [], incidentStartedAt: 'i' })).toEqual({ since: 'i', exact: false, basis: 'incident' });
    expect(statusSince({ ...base, status: 'OK', signals: [{ type: 'FAIL', receivedAt: 't' }] })).toEqual({ since: null, exact: false, basis: 'unknown' });
    expect(statusSince({ ...base, status: 'NEW', signals: [] })).toEqual({ since: 'c', exact: true, basis: 'created' });
    expect(statusSince({ ...base, status: 'PAUSED', signals: [] })).toEqual({ since: 'u', exact: false, basis: 'last change' });
  });

  it('reads an HTTP check from its probe runs', () => {
    const runs = [
      { lastRunAt: 'r3', ok: false },
      { lastRunAt: 'r2', ok: false },
      { lastRunAt: 'r1', ok: true },
    ];
    expect(statusSince({ ...base, mode: 'OUTBOUND', status: 'DOWN', signals: [], runs })).toEqual({ since: 'r2', exact: true, basis: 'probe runs' });
  });
});
