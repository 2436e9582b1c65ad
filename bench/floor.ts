import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';

/**
 * The floor for the ping Lambda's cold start (bench/cold.ts): Hono, a DynamoDB client and an SQS
 * client, bundled the same way. Nothing a ping needs could cost less.
 */
const dynamo = new DynamoDBClient({});
const sqs = new SQSClient({});
const app = new Hono();
app.get('/api/signals/ping/:token', async (c) => {
  await dynamo.send(
    new UpdateItemCommand({
      TableName: 'vigil',
      Key: { pk: { S: c.req.param('token') } },
      UpdateExpression: 'SET #n = :n',
      ExpressionAttributeNames: { '#n': 'n' },
      ExpressionAttributeValues: { ':n': { N: '1' } },
    }),
  );
  await sqs.send(new SendMessageCommand({ QueueUrl: 'https://sqs.invalid/queue', MessageBody: '{}' }));
  return c.json({ message: 'OK' });
});

export const handler = handle(app);
