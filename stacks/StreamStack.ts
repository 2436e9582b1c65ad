import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Function, use, WebSocketApi, type StackContext } from 'sst/constructs';
import { StorageStack } from './StorageStack.js';
import { storeEnvironment, tableReadWrite } from './permissions.js';
import { deploySettings } from './settings.js';

/** The only action on the WebSocket API a function needs: post to, or drop, a connection. */
export const MANAGE_CONNECTIONS = 'execute-api:ManageConnections';

/**
 * The streams on AWS (docs/guide/streams.md): one API Gateway WebSocket API
 * whose `$connect`, `$disconnect` and `$default` routes share one small Lambda
 * (core/streams/aws.ts). `$default` returns its answer to the sender (the pong). Functions that
 * publish events, or close a user's streams, get `publishing`: the management endpoint and
 * ManageConnections on this API's connections only.
 */
export function StreamStack({ stack }: StackContext) {
  const settings = deploySettings();
  const { table } = use(StorageStack);

  const streamsFunction = new Function(stack, 'StreamsFunction', {
    handler: 'functions/streams.handler',
    description: 'Vigil stream connections (WebSocket $connect, $disconnect, $default)',
    timeout: 10,
    memorySize: 512,
    environment: storeEnvironment(table.tableName, settings),
    permissions: [tableReadWrite(table.tableArn)],
  });

  const streams = new WebSocketApi(stack, 'Streams', {
    routes: {
      $connect: streamsFunction,
      $disconnect: streamsFunction,
      $default: { function: streamsFunction, returnResponse: true },
    },
  });
  const stage = streams.cdk.webSocketStage;
  const connectionsArn = stack.formatArn({
    service: 'execute-api',
    resource: streams.cdk.webSocketApi.apiId,
    resourceName: `${stage.stageName}/*/@connections/*`,
  });

  stack.addOutputs({ StreamUrl: streams.url });
  return {
    streams,
    publishing: {
      environment: { VIGIL_STREAM_ENDPOINT: stage.callbackUrl },
      permissions: [new PolicyStatement({ actions: [MANAGE_CONNECTIONS], resources: [connectionsArn] })],
    },
  };
}
