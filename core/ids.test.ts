import { decodeTime, isValid } from 'ulid';
import { describe, expect, it, vi } from 'vitest';
import { monotonicUlids, newUlid } from './ids.js';

describe('newUlid', () => {
  it('stamps the given time and never repeats across refills of its random pool', () => {
    const at = Date.parse('2026-03-01T12:00:00.000Z');
    // 1,000 ids draw 16,000 bytes: the 4 KiB pool refills four times.
    const ids = Array.from({ length: 1_000 }, () => newUlid(at));
    for (const id of ids) {
      expect(isValid(id)).toBe(true);
      expect(decodeTime(id)).toBe(at);
    }
    expect(new Set(ids).size).toBe(ids.length);
    // Every character of the random part shows up: the bytes are spread, not stuck.
    expect(new Set(ids.flatMap((id) => [...id.slice(10)])).size).toBe(32);
  });

  it('asks the system for randomness a page at a time, not once per character', async () => {
    const crypto = await import('node:crypto');
    const fill = vi.spyOn(crypto.webcrypto, 'getRandomValues');
    try {
      for (let i = 0; i < 100; i++) newUlid();
      // The package's own generator would make 1,600 calls here.
      expect(fill.mock.calls.length).toBe(0);
    } finally {
      fill.mockRestore();
    }
  });

  it("keeps a factory's ids increasing within one millisecond", () => {
    const next = monotonicUlids();
    const at = Date.parse('2026-03-01T12:00:00.000Z');
    const ids = Array.from({ length: 300 }, () => next(at));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
