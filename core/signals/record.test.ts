import { decodeTime, isValid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { signalId, signalItem, toSignal } from './record.js';

describe('signal records', () => {
  it('ids are valid ULIDs of the signal time, unique and ordered by time', () => {
    const now = new Date('2026-03-01T12:00:00.000Z');
    const ids = Array.from({ length: 2000 }, () => signalId(now));
    for (const id of ids.slice(0, 50)) {
      expect(isValid(id)).toBe(true);
      expect(decodeTime(id)).toBe(now.getTime());
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(signalId(new Date(now.getTime() + 1)) > ids[0]!).toBe(true);
  });

  it('keeps a 30-day TTL and renders JSON payloads as JSON, text as text', () => {
    const now = new Date('2026-03-01T12:00:00.000Z');
    const json = signalItem({ checkId: 1, workspaceId: 2 }, { type: 'SUCCESS', source: 'PING', payload: { text: '{"a":[1]}', isJson: true } }, now);
    expect(json.expiresAt).toBe(now.getTime() / 1000 + 30 * 86_400);
    expect(toSignal(json)).toMatchObject({ checkId: 1, type: 'SUCCESS', payload: { a: [1] }, sourceIp: null, durationMs: null });
    const text = signalItem({ checkId: 1, workspaceId: 2 }, { type: 'FAIL', source: 'PING', payload: { text: 'oops', isJson: false } }, now);
    expect(toSignal(text).payload).toBe('oops');
  });
});
