import { ulid } from 'ulid';
import type { Queue, QueueConsumer, QueueMessage, QueueName } from '../../ports/index.js';

type Pending = QueueMessage & { receiveCount: number };

/**
 * In-process queue with SQS's semantics where they matter: at-least-once delivery, partial batch
 * failures retried, and a dead-letter list after `maxReceives` attempts.
 */
export class LocalQueue implements Queue {
  readonly deadLetters: Record<string, QueueMessage[]> = {};
  private readonly pending = new Map<QueueName, Pending[]>();
  private readonly consumers = new Map<QueueName, QueueConsumer>();
  private draining: Promise<void> | undefined;
  private scheduled = false;

  constructor(private readonly options: { autoDrain: boolean; maxReceives?: number; batchSize?: number }) {}

  consume(queue: QueueName, consumer: QueueConsumer): void {
    this.consumers.set(queue, consumer);
  }

  async publish(queue: QueueName, bodies: unknown[]): Promise<void> {
    if (bodies.length === 0) return;
    const list = this.pending.get(queue) ?? [];
    for (const body of bodies) list.push({ id: ulid(), body: structuredClone(body), receiveCount: 0 });
    this.pending.set(queue, list);
    if (this.options.autoDrain && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        void this.drain().catch((err: unknown) => console.error('local queue drain failed', err));
      });
    }
  }

  /** Messages waiting (tests use it to see what a step published). */
  peek(queue: QueueName): unknown[] {
    return (this.pending.get(queue) ?? []).map((message) => message.body);
  }

  /** Delivers everything pending, including what consumers publish while it runs. */
  async drain(): Promise<void> {
    while (this.draining) await this.draining;
    this.draining = this.drainAll();
    try {
      await this.draining;
    } finally {
      this.draining = undefined;
    }
  }

  private async drainAll(): Promise<void> {
    const maxReceives = this.options.maxReceives ?? 5;
    const batchSize = this.options.batchSize ?? 10;
    for (let progressed = true; progressed; ) {
      progressed = false;
      for (const [queue, list] of this.pending) {
        const consumer = this.consumers.get(queue);
        if (!consumer || list.length === 0) continue;
        progressed = true;
        const batch = list.splice(0, batchSize);
        for (const message of batch) message.receiveCount++;
        let failedIds: string[];
        try {
          ({ failedIds } = await consumer(batch.map(({ id, body }) => ({ id, body }))));
        } catch (err) {
          console.error(`local queue ${queue}: consumer threw`, err);
          failedIds = batch.map((message) => message.id);
        }
        for (const message of batch.filter((m) => failedIds.includes(m.id))) {
          if (message.receiveCount >= maxReceives) {
            (this.deadLetters[queue] ??= []).push({ id: message.id, body: message.body });
          } else {
            list.push(message);
          }
        }
      }
    }
  }
}
