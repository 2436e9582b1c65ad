import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { StackContext } from 'sst/constructs';
import { TABLE_KEYS } from '../core/store/table.js';
import { resourceNames } from './settings.js';

/**
 * The single table (core/store/table.ts is the one definition of its keys). On-demand, TTL on
 * `expiresAt`, point-in-time recovery, and kept when the stack is removed: it holds the users' data.
 */
export function StorageStack({ app, stack }: StackContext) {
  const key = (name: string) => ({ name, type: AttributeType.STRING });
  const table = new Table(stack, 'Table', {
    tableName: resourceNames(app).table,
    partitionKey: key(TABLE_KEYS.partitionKey),
    sortKey: key(TABLE_KEYS.sortKey),
    billingMode: BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: TABLE_KEYS.ttlAttribute,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    removalPolicy: RemovalPolicy.RETAIN,
  });
  for (const index of TABLE_KEYS.indexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: key(index.partitionKey),
      sortKey: key(index.sortKey),
      projectionType: ProjectionType.ALL,
    });
  }
  stack.addOutputs({ TableName: table.tableName });
  return { table };
}
