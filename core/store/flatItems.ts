import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { convertToAttr, convertToNative } from '@aws-sdk/util-dynamodb';

/*
 * marshall and unmarshall (@aws-sdk/util-dynamodb) for the ping path's items, whose values are
 * nearly all strings and small numbers. The library sends every value through a chain of
 * constructor-name checks, and every number through string comparisons with NaN and the
 * infinities; for a steady ping's update and signal (about 30 values) that was about a fifth of
 * the ping path's own CPU. Strings, booleans, null and safe finite numbers are converted here as
 * the library converts them; every other value (lists, maps, sets, binary, big or special
 * numbers) goes to the library's own converter, with the same options. flatItems.test.ts holds
 * the two to each other.
 */

const OPTIONS = { removeUndefinedValues: true } as const;

const isPlainNumber = (value: number): boolean => Number.isFinite(value) && value <= Number.MAX_SAFE_INTEGER && value >= Number.MIN_SAFE_INTEGER;

/** `marshall(item, { removeUndefinedValues: true })` for a plain object. */
export function marshallItem(item: Record<string, unknown>): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const name in item) {
    const value = item[name];
    if (value === undefined || typeof value === 'function') continue;
    if (typeof value === 'string') out[name] = { S: value };
    else if (typeof value === 'number' && isPlainNumber(value)) out[name] = { N: value.toString() };
    else if (typeof value === 'boolean') out[name] = { BOOL: value };
    else if (value === null) out[name] = { NULL: true };
    else out[name] = convertToAttr(value, OPTIONS) as AttributeValue;
  }
  return out;
}

/** `unmarshall(item)` for a stored item. */
export function unmarshallItem(item: Record<string, AttributeValue>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name in item) {
    const value = item[name] as AttributeValue & Partial<Record<'S' | 'N' | 'BOOL' | 'NULL', unknown>>;
    if (typeof value.S === 'string') out[name] = value.S;
    else if (typeof value.N === 'string' && isPlainNumber(Number(value.N))) out[name] = Number(value.N);
    else if (typeof value.BOOL === 'boolean') out[name] = value.BOOL;
    else if (value.NULL === true) out[name] = null;
    else out[name] = convertToNative(value);
  }
  return out;
}
