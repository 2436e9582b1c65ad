import { createRequire } from 'node:module';
import { type AttributeValue, GetItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoClient, ensureTable, hotPathClient } from '../../store/client.js';
import { type EmbeddedStore, startEmbeddedStore } from './embeddedStore.js';

/**
 * dynalite copies each attribute value of one well-typed member directly, instead of checking it
 * against the ten members an attribute value may have (its validations/index.js,
 * `wellTypedAttributeValue`, patched by patches/dynalite+4.0.0.patch); anything else takes the
 * generic check. Both ways must give the same copy or the same error: each value below goes
 * through `checkTypes` with the shortcut off and on, and the outcomes compare.
 */

const require = createRequire(import.meta.url);
type Checked = Error & { statusCode?: number; body?: unknown };
const validations = require('dynalite/validations') as {
  checkTypes(data: object, types: object): object;
  setWellTypedShortcut(enabled: boolean): void;
};
const putItemTypes = (require('dynalite/validations/putItem') as { types: object }).types;

afterEach(() => validations.setWellTypedShortcut(true));

function outcome(item: unknown): unknown {
  // checkTypes deletes unknown members of what it is given, so each way gets its own copy.
  try {
    return { result: validations.checkTypes({ TableName: 'table', Item: structuredClone(item) }, putItemTypes) };
  } catch (err) {
    const checked = err as Checked;
    return { error: checked.message, statusCode: checked.statusCode, body: checked.body };
  }
}

/** Values of each member, of the right type and of wrong ones, alone, nested and together. */
const values: Record<string, unknown> = {
  string: { S: 'a' },
  emptyString: { S: '' },
  number: { N: '5' },
  numberAsNumber: { N: 5 },
  stringAsNumber: { S: 5 },
  stringAsBoolean: { S: true },
  stringAsObject: { S: { x: 1 } },
  stringAsArray: { S: ['a'] },
  bool: { BOOL: true },
  boolAsString: { BOOL: 'true' },
  boolAsOtherString: { BOOL: 'maybe' },
  boolAsNumber: { BOOL: 1 },
  nul: { NULL: true },
  nulFalse: { NULL: false },
  nulAsString: { NULL: 'yes' },
  binary: { B: 'YWJj' },
  binaryBadLength: { B: 'YWJ' },
  stringSet: { SS: ['a', 'b'] },
  stringSetWithNumber: { SS: ['a', 1] },
  stringSetWithNull: { SS: ['a', null] },
  stringSetAsString: { SS: 'a' },
  numberSet: { NS: ['1', '2'] },
  binarySet: { BS: ['YWJj'] },
  list: { L: [{ S: 'a' }, { N: '1' }, { M: { x: { BOOL: false } } }] },
  listWithBadMember: { L: [{ S: 'a' }, { N: 1 }] },
  listWithNull: { L: [{ S: 'a' }, null] },
  listAsObject: { L: { S: 'a' } },
  map: { M: { a: { S: 'x' }, b: { L: [{ NS: ['1'] }] } } },
  mapWithBadMember: { M: { a: { SS: 'x' } } },
  mapWithNull: { M: { a: null, b: { S: 'y' } } },
  mapAsArray: { M: [{ S: 'a' }] },
  mapAsNull: { M: null },
  twoMembers: { S: 'a', N: '1' },
  memberAndNull: { S: 'a', N: null },
  onlyNull: { S: null },
  empty: {},
  unknownMember: { X: 'a' },
  knownAndUnknown: { S: 'a', X: 'b' },
  asArray: [{ S: 'a' }],
  asString: 'a',
  asNumber: 1,
};

describe('checkTypes with and without the well-typed shortcut', () => {
  for (const [name, value] of Object.entries(values)) {
    it(`gives the same answer for ${name}`, () => {
      const item = { pk: { S: 'k' }, sk: { S: 's' }, value };
      validations.setWellTypedShortcut(false);
      const generic = outcome(item);
      validations.setWellTypedShortcut(true);
      expect(outcome(item)).toEqual(generic);
    });
  }

  it('copies what it is given, sharing no object with it', () => {
    const value = { L: [{ M: { a: { SS: ['x'] } } }] };
    const checked = validations.checkTypes({ TableName: 'table', Item: { pk: { S: 'k' }, value } }, putItemTypes) as { Item: { value: typeof value } };
    expect(checked.Item.value).toEqual(value);
    expect(checked.Item.value).not.toBe(value);
    expect(checked.Item.value.L[0]).not.toBe(value.L[0]);
    expect(checked.Item.value.L[0]?.M.a.SS).not.toBe(value.L[0]?.M.a.SS);
  });
});

describe('requests of one shape through the store, with values of the right type and then a wrong one', () => {
  const TABLE = 'valuetypes';
  let store: EmbeddedStore;
  let client: ReturnType<typeof hotPathClient>;
  let send: (item: Record<string, AttributeValue>) => Promise<unknown>;

  beforeAll(async () => {
    store = await startEmbeddedStore(':memory:');
    const doc = createDynamoClient({ endpoint: store.endpoint });
    await ensureTable(doc, TABLE);
    client = hotPathClient(doc);
    send = async (Item) => {
      await client.send(new PutItemCommand({ TableName: TABLE, Item }));
      return (await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: Item.pk as AttributeValue, sk: Item.sk as AttributeValue } }))).Item;
    };
  });
  afterAll(() => store.close());

  const item = (n: unknown, tags: unknown): Record<string, AttributeValue> =>
    ({ pk: { S: 'types' }, sk: { S: 'one' }, n: { N: n }, tags: { L: [{ SS: tags }] } }) as Record<string, AttributeValue>;

  it('stores the first and refuses the second as DynamoDB does', async () => {
    await expect(send(item('1', ['a']))).resolves.toEqual({ pk: { S: 'types' }, sk: { S: 'one' }, n: { N: '1' }, tags: { L: [{ SS: ['a'] }] } });
    await expect(send(item(2, ['a']))).rejects.toMatchObject({ name: 'SerializationException', message: 'NUMBER_VALUE cannot be converted to String' });
    await expect(send(item('3', ['a', 4]))).rejects.toMatchObject({ name: 'SerializationException', message: 'NUMBER_VALUE cannot be converted to String' });
    await expect(send(item('4', []))).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('checks an update value of the same shape on its own value', async () => {
    await send(item('1', ['a']));
    const update = (value: unknown) =>
      client.send(
        new UpdateItemCommand({
          TableName: TABLE,
          Key: { pk: { S: 'types' }, sk: { S: 'one' } },
          UpdateExpression: 'SET n = :n',
          ExpressionAttributeValues: { ':n': value as AttributeValue },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
    await expect(update({ N: '2' })).resolves.toMatchObject({ Attributes: { n: { N: '2' } } });
    await expect(update({ N: true })).rejects.toMatchObject({ name: 'SerializationException', message: 'TRUE_VALUE cannot be converted to String' });
  });
});
