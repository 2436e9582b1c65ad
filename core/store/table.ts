/**
 * The single table's shape, shared by the local runtime (which creates it) and `stacks/` (which
 * deploys it). Generic key names so every entity fits without a table change.
 */
export const TABLE_KEYS = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'expiresAt',
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
    // The outbox-due index (core/store/outbox.ts): sparse, an item is in it only while it owes messages.
    { name: 'gsi4', partitionKey: 'gsi4pk', sortKey: 'gsi4sk' },
    // The escalation-due index (core/escalation/cursor.ts): sparse, an incident is in it only while a step is pending.
    { name: 'gsi5', partitionKey: 'gsi5pk', sortKey: 'gsi5sk' },
  ],
} as const;

/** The CreateTable input for DynamoDB-compatible stores (dynalite, DynamoDB Local, DynamoDB). */
export function createTableInput(tableName: string) {
  const keyAttributes = [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey, ...TABLE_KEYS.indexes.flatMap((index) => [index.partitionKey, index.sortKey])];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
    KeySchema: [
      { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: TABLE_KEYS.indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'ALL' as const },
    })),
  };
}
