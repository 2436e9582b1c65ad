import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * One message of a local queue (the embedded runtime; on AWS, SQS holds them). Pending and
 * in-flight messages live here so a SIGKILL of `npm start` loses none. `lane` is the queue name,
 * or `<queue>-dlq` once a message has been dead-lettered. The `visible` index orders a lane by
 * `visibleAt`: a receive sets it to the end of its lease (`leased`), a failure to the retry time.
 * The body is kept as JSON text, as SQS carries it.
 */
export const createQueueMessageEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'queueMessage', version: '1', service: 'vigil' },
      attributes: {
        lane: { type: 'string', required: true },
        messageId: { type: 'string', required: true },
        body: { type: 'string', required: true },
        receiveCount: { type: 'number', required: true },
        visibleAt: { type: 'string', required: true },
        leased: { type: 'boolean', required: true },
        sentAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['lane'] }, sk: { field: 'sk', composite: ['messageId'] } },
        visible: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['lane'] },
          sk: { field: 'gsi1sk', composite: ['visibleAt', 'messageId'] },
        },
      },
    },
    config,
  );

export type QueueMessageItem = EntityItem<ReturnType<typeof createQueueMessageEntity>>;
