import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Dispatch } from './directDispatch.js';

/**
 * dynalite sizes every item it writes or reads (capacity, item size limit, a query's 1 MB), checks
 * every number of every request, and walks every request's members for their validations. Its
 * patch (patches/dynalite+4.0.0.patch, docs/adr/0010-embedded-store-patch.md, 2026-11-28) does
 * each with fewer allocations: a number's size and check read from its text instead of a big.js
 * number, sizes summed without Object.keys and closures, a member's path written out only for an
 * error. The originals are copied below from dynalite 4.0.0 (db/index.js `itemSize`,
 * `valSizeWithStorage`, `valSize`; validations/index.js `checkNum`), and the patched code must
 * answer as they do.
 */

const require = createRequire(import.meta.url);
type BigNumber = { c: number[]; e: number; s: number; toFixed(): string };
// The big.js dynalite itself uses (its dependency, not this project's).
const dynaliteRequire = createRequire(require.resolve('dynalite/package.json'));
const Big = dynaliteRequire('big.js') as new (text: string) => BigNumber;
const db = require('dynalite/db') as { itemSize(item: object, compress?: boolean, addMetaSize?: boolean, rangeKey?: string): number };
const validations = require('dynalite/validations') as { validateAttributeValue(value: object): string | undefined };

type Value = Record<string, unknown>;

// dynalite 4.0.0's sizes, as they were.
function originalItemSize(item: Record<string, Value>, compress?: boolean, addMetaSize?: boolean, rangeKey?: string): number {
  let rangeKeySize = 0;
  const size = Object.keys(item).reduce((sum, attr) => {
    const attrSize = originalValSizeWithStorage(item[attr] as Value, !!compress && attr !== rangeKey);
    if (compress && attr === rangeKey) {
      rangeKeySize = attrSize;
      return sum;
    }
    return sum + attrSize + (compress ? 1 : attr.length);
  }, 0);
  return !addMetaSize ? size : 2 + size + (1 + Math.floor((1 + size) / 3072)) * (18 + rangeKeySize);
}

function originalValSizeWithStorage(itemAttr: Value, compress: boolean): number {
  const type = Object.keys(itemAttr)[0] as string;
  const val = itemAttr[type] as never;
  const size = originalValSize(val, type, compress);
  if (!compress) return size;
  const length = (val as unknown[]).length;
  switch (type) {
    case 'S':
      return size + (size < 128 ? 1 : size < 16384 ? 2 : 3);
    case 'B':
    case 'N':
      return size + 1;
    case 'SS':
    case 'BS':
    case 'NS':
      return size + length + 1;
    case 'NULL':
      return 0;
    case 'BOOL':
      return 1;
    default:
      return size;
  }
}

function originalValSize(val: never, type: string, compress: boolean): number {
  switch (type) {
    case 'S':
      return (val as string).length;
    case 'B':
      return Buffer.from(val as string, 'base64').length;
    case 'N': {
      const big = new Big(val);
      const numDigits = big.c.length;
      if (numDigits === 1 && big.c[0] === 0) return 1;
      return 1 + Math.ceil(numDigits / 2) + (numDigits % 2 || big.e % 2 ? 0 : 1) + (big.s === -1 ? 1 : 0);
    }
    case 'SS':
      return (val as string[]).reduce((sum, x) => sum + originalValSize(x as never, 'S', compress), 0);
    case 'BS':
      return (val as string[]).reduce((sum, x) => sum + originalValSize(x as never, 'B', compress), 0);
    case 'NS':
      return (val as string[]).reduce((sum, x) => sum + originalValSize(x as never, 'N', compress), 0);
    case 'NULL':
    case 'BOOL':
      return 1;
    case 'L':
      return 3 + (val as Value[]).reduce((sum, member) => sum + 1 + originalValSizeWithStorage(member, compress), 0);
    default:
      return 3 + Object.keys(val).length + originalItemSize(val, compress);
  }
}

// dynalite 4.0.0's check of a number, as it was: a message, or the number rewritten by big.js.
function originalCheckNum(text: string): { message?: string; number?: string } {
  if (!text) return { message: 'The parameter cannot be converted to a numeric value' };
  let big: BigNumber;
  try {
    big = new Big(text);
  } catch {
    return { message: `The parameter cannot be converted to a numeric value: ${text}` };
  }
  if (big.e > 125) return { message: 'Number overflow. Attempting to store a number with magnitude larger than supported range' };
  if (big.e < -130) return { message: 'Number underflow. Attempting to store a number with magnitude smaller than supported range' };
  if (big.c.length > 38) return { message: 'Attempting to store more than 38 significant digits in a Number' };
  return { number: big.toFixed() };
}

const digits = (min: number, max: number) => fc.array(fc.constantFrom('0', '0', '0', '1', '2', '5', '9'), { minLength: min, maxLength: max }).map((d) => d.join(''));
/** Numbers as a request may write them: signs, zeros on either side, points, exponents, 38 digits and more. */
const numberText = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('', '-', '+'),
      digits(0, 45),
      fc.option(digits(0, 45)),
      fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '-', '+'), fc.integer({ min: 0, max: 140 }))),
    )
    .map(
      ([sign, whole, fraction, exponent]) => `${sign}${whole}${fraction === null ? '' : `.${fraction}`}${exponent === null ? '' : `${exponent[0]}${exponent[1]}${exponent[2]}`}`,
    ),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.constantFrom(
    '0',
    '-0',
    '0.0',
    '-00.000',
    '00012.3400',
    '1'.repeat(38),
    '1'.repeat(39),
    `1${'0'.repeat(125)}`,
    `1${'0'.repeat(126)}`,
    `0.${'0'.repeat(129)}1`,
    `0.${'0'.repeat(130)}1`,
    '5.',
    '.5',
    '',
    'x',
  ),
);
const validNumber = numberText.filter((text) => originalCheckNum(text).number !== undefined);

const attributeValue: fc.Arbitrary<Value> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ maxLength: 300 }).map((S) => ({ S })),
    validNumber.map((N) => ({ N })),
    fc.uint8Array({ maxLength: 40 }).map((bytes) => ({ B: Buffer.from(bytes).toString('base64') })),
    fc.uniqueArray(fc.string({ maxLength: 5 }), { minLength: 1, maxLength: 4 }).map((SS) => ({ SS })),
    fc.uniqueArray(validNumber, { minLength: 1, maxLength: 4 }).map((NS) => ({ NS })),
    fc.constant({ BS: ['AAE=', 'AQID'] }),
    fc.constant({ NULL: true }),
    fc.boolean().map((BOOL) => ({ BOOL })),
    fc.array(tie('value'), { maxLength: 4 }).map((L) => ({ L })),
    fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), tie('value'), { maxKeys: 5 }).map((M) => ({ M })),
  ),
})).value;
const item = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), attributeValue, { minKeys: 1, maxKeys: 30 });

describe("dynalite's sizes and checks, patched to allocate less", () => {
  it('sizes a number as big.js did, whatever its sign, zeros, point, exponent or digits', () => {
    fc.assert(
      fc.property(validNumber, (text) => {
        const value = { n: { N: text } };
        expect(db.itemSize(value)).toBe(originalItemSize(value));
        expect(db.itemSize(value, true)).toBe(originalItemSize(value, true));
      }),
      { numRuns: 20_000 },
    );
  });

  it('sizes whole items, nested maps and lists, sets and binary values as before, compressed or not', () => {
    fc.assert(
      fc.property(item, fc.boolean(), fc.boolean(), (value, compress, addMetaSize) => {
        const rangeKey = Object.keys(value)[0];
        expect(db.itemSize(value, compress, addMetaSize, rangeKey)).toBe(originalItemSize(value, compress, addMetaSize, rangeKey));
        expect(db.itemSize(value)).toBe(originalItemSize(value));
      }),
      { numRuns: 3_000 },
    );
  });

  it('checks a number and rewrites it as big.js did: the same error, or the same text', () => {
    fc.assert(
      fc.property(numberText, (text) => {
        const value = { N: text };
        const message = validations.validateAttributeValue(value);
        const original = originalCheckNum(text);
        expect(message).toBe(original.message);
        if (!original.message) expect(value.N).toBe(original.number);
        // In a number set, each member the same way.
        const set = { NS: [text] };
        expect(validations.validateAttributeValue(set)).toBe(original.message);
        if (!original.message) expect(set.NS[0]).toBe(original.number);
      }),
      { numRuns: 20_000 },
    );
  });
});

type DynaliteServer = Server & { dispatch: Dispatch };
const dynalite = require('dynalite') as (options: object) => DynaliteServer;

function refusal(store: DynaliteServer, operation: string, data: object): Promise<string> {
  return new Promise((resolve, reject) =>
    store.dispatch(operation, structuredClone(data) as Record<string, unknown>, (err) =>
      err ? resolve((err.body as { message: string }).message) : reject(new Error('accepted')),
    ),
  );
}

describe('validation errors name the path of the member they refuse', () => {
  // Messages of dynalite 4.0.0 before the patch, for the same requests.
  const enumOf = 'Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]';
  const store = dynalite({ createTableMs: 0 });

  it('in lists of structures, maps of structures and structures in structures, as before', async () => {
    expect(await refusal(store, 'BatchWriteItem', { RequestItems: { vigil: [{ DeleteRequest: {} }, { PutRequest: {} }] } })).toBe(
      "2 validation errors detected: Value null at 'requestItems.vigil.member.1.member.deleteRequest.key' failed to satisfy constraint: Member must not be null; Value null at 'requestItems.vigil.member.2.member.putRequest.item' failed to satisfy constraint: Member must not be null",
    );
    expect(await refusal(store, 'BatchGetItem', { RequestItems: { vigil: { Keys: [], ProjectionExpression: 'a' }, x: { Keys: [{ a: { S: 'b' } }] } } })).toBe(
      `2 validation errors detected: Value '{"vigil":{"Keys":[],"ProjectionExpression":"a"},"x":{"Keys":[{"a":{"S":"b"}}]}}' at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]; Value '[]' at 'requestItems.vigil.member.keys' failed to satisfy constraint: Member must have length greater than or equal to 1`,
    );
    expect(
      await refusal(store, 'Query', {
        TableName: 'vigil',
        KeyConditions: { pk: { ComparisonOperator: 'NOPE' }, sk: { ComparisonOperator: 'EQ', AttributeValueList: [] } },
        Select: 'SOME',
        Limit: 0,
      }),
    ).toBe(
      `3 validation errors detected: Value 'SOME' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]; Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1; Value 'NOPE' at 'keyConditions.pk.member.comparisonOperator' failed to satisfy constraint: ${enumOf}`,
    );
    expect(
      await refusal(store, 'PutItem', {
        TableName: 'vigil',
        Item: { a: { S: 'x' }, b: { M: { c: { N: '1' } } } },
        Expected: { a: { ComparisonOperator: 'BAD' }, b: { Value: { S: 'x' }, ComparisonOperator: 'EQ2' } },
        ReturnValues: 'NOPE',
      }),
    ).toBe(
      `3 validation errors detected: Value 'BAD' at 'expected.a.member.comparisonOperator' failed to satisfy constraint: ${enumOf}; Value 'EQ2' at 'expected.b.member.comparisonOperator' failed to satisfy constraint: ${enumOf}; Value 'NOPE' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]`,
    );
  });

  it('stops at ten, as before', async () => {
    const message = await refusal(store, 'BatchWriteItem', { RequestItems: { vigil: Array.from({ length: 30 }, () => ({ DeleteRequest: {} })) } });
    expect(message.startsWith('10 validation errors detected: ')).toBe(true);
    expect(message.split('; ').slice(1)).toEqual(
      Array.from({ length: 9 }, (_, i) => `Value null at 'requestItems.vigil.member.${i + 1}.member.deleteRequest.key' failed to satisfy constraint: Member must not be null`),
    );
  });
});

describe("an update's new item", () => {
  const store = dynalite({ createTableMs: 0 });
  const call = (operation: string, data: object) =>
    new Promise<Record<string, unknown>>((resolve, reject) =>
      store.dispatch(operation, structuredClone(data) as Record<string, unknown>, (err, out) => (err ? reject(err) : resolve(out ?? {}))),
    );

  it("has exactly the item's attributes: names that objects inherit are attributes like any other", async () => {
    await call('CreateTable', {
      TableName: 'names',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    });
    // dynalite activates a table a timer's turn after creating it (createTableMs 0).
    while ((await call('DescribeTable', { TableName: 'names' }).then((out) => (out.Table as { TableStatus: string }).TableStatus)) !== 'ACTIVE') {
      await new Promise((resolve) => setImmediate(resolve));
    }
    await call('PutItem', { TableName: 'names', Item: { pk: { S: 'a' }, toString: { N: '1' }, m: { M: { valueOf: { S: 'v' } } } } });
    const update = {
      TableName: 'names',
      Key: { pk: { S: 'a' } },
      UpdateExpression:
        'SET #c = if_not_exists(#c, :v), #p = :w, #t = #t + :one, #h = if_not_exists(#h, :w), m.#vo = if_not_exists(m.#h, :w), m.#p = :v, #l = list_append(if_not_exists(#l, :empty), :list) REMOVE #x',
      ExpressionAttributeNames: {
        '#c': 'constructor',
        '#p': '__proto__',
        '#t': 'toString',
        '#h': 'hasOwnProperty',
        '#vo': 'valueOf',
        '#x': 'isPrototypeOf',
        '#l': 'propertyIsEnumerable',
      },
      ExpressionAttributeValues: { ':v': { S: 'new' }, ':w': { N: '2' }, ':one': { N: '1' }, ':empty': { L: [] }, ':list': { L: [{ S: 'x' }] } },
    };
    // dynalite 4.0.0's answers, before the patch, as JSON.
    expect(JSON.stringify((await call('UpdateItem', { ...update, ReturnValues: 'ALL_NEW' })).Attributes)).toBe(
      '{"pk":{"S":"a"},"toString":{"N":"2"},"m":{"M":{"valueOf":{"N":"2"},"__proto__":{"S":"new"}}},"constructor":{"S":"new"},"__proto__":{"N":"2"},"hasOwnProperty":{"N":"2"},"propertyIsEnumerable":{"L":[{"S":"x"}]}}',
    );
    expect(JSON.stringify((await call('UpdateItem', { ...update, ReturnValues: 'UPDATED_OLD' })).Attributes)).toBe(
      '{"constructor":{"S":"new"},"__proto__":{"N":"2"},"toString":{"N":"2"},"hasOwnProperty":{"N":"2"},"m":{"M":{"valueOf":{"N":"2"}}},"propertyIsEnumerable":{"L":[{"S":"x"}]}}',
    );
    expect(JSON.stringify((await call('GetItem', { TableName: 'names', Key: { pk: { S: 'a' } } })).Item)).toBe(
      '{"pk":{"S":"a"},"toString":{"N":"3"},"m":{"M":{"valueOf":{"N":"2"},"__proto__":{"S":"new"}}},"constructor":{"S":"new"},"__proto__":{"N":"2"},"hasOwnProperty":{"N":"2"},"propertyIsEnumerable":{"L":[{"S":"x"},{"S":"x"}]}}',
    );
  });
});
