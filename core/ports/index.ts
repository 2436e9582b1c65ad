/**
 * What differs between AWS and the embedded runtime. Core code depends only on these; the
 * implementations live in adapters/aws and adapters/local.
 */

/** Queues between stages: ping ingestion -> incidents -> alert delivery. At-least-once. */
export const QUEUE_NAMES = ['incidents', 'alerts'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export type QueueMessage = { id: string; body: unknown };

export interface Queue {
  /** Sends each body as one message. Consumers must be idempotent. */
  publish(queue: QueueName, bodies: unknown[]): Promise<void>;
}

/** A consumer gets a batch and returns the ids of the messages that failed (retried later). */
export type QueueConsumer = (messages: QueueMessage[]) => Promise<{ failedIds: string[] }>;

export type ScheduleSpec = {
  /** Stable name, e.g. `probe-<checkId>-<region>`. */
  name: string;
  everySeconds: number;
  /** What the target receives each time. */
  payload: Record<string, unknown>;
  /** Which target function runs it (on AWS: the probe Lambda of that region). */
  target: 'probe';
  region: string;
  enabled: boolean;
};

export interface Scheduler {
  upsert(schedule: ScheduleSpec): Promise<void>;
  remove(name: string): Promise<void>;
}

export type BroadcastEvent = { channel: string; type: string; data: unknown };

export interface Broadcaster {
  publish(event: BroadcastEvent): Promise<void>;
}

export type MailMessage = { to: string; subject: string; text: string; html?: string };

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
