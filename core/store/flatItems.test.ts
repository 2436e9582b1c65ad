import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { marshallItem, unmarshallItem } from './flatItems.js';

/** Values of every kind a ping's update, its signal or an item read back can hold, and the odd ones. */
const item = {
  token: 'Abc-123',
  empty: '',
  count: 3,
  zero: 0,
  negative: -17,
  fraction: 1.5,
  big: Number.MAX_SAFE_INTEGER,
  small: Number.MIN_SAFE_INTEGER,
  yes: true,
  no: false,
  nothing: null,
  skipped: undefined,
  list: ['a', 1, { nested: 'b', gone: undefined }],
  emptyList: [],
  map: { exitCode: 3, rid: 'x', deep: { flag: true } },
  set: new Set(['a', 'b']),
  numbers: new Set([1, 2]),
  bytes: new Uint8Array([1, 2, 3]),
  boxed: new String('boxed'),
};

describe('the ping path’s marshalling', () => {
  it('writes every value as marshall with removeUndefinedValues does', () => {
    expect(marshallItem(item)).toEqual(marshall(item, { removeUndefinedValues: true }));
  });

  it('refuses what marshall refuses: special and unsafe numbers', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 2]) {
      expect(() => marshallItem({ value })).toThrow();
      expect(() => marshall({ value })).toThrow();
    }
  });

  it('reads every value back as unmarshall does', () => {
    const stored = marshall(item, { removeUndefinedValues: true });
    expect(unmarshallItem(stored)).toEqual(unmarshall(stored));
    const odd = { huge: { N: '9007199254740993' }, blank: { N: '' }, word: { N: 'x' }, float: { N: '2.50' }, empty: { L: [] } };
    expect(unmarshallItem(odd)).toEqual(unmarshall(odd));
  });
});
