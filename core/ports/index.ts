/**
 * What differs between AWS and the embedded runtime. Core code depends only on these; the
 * implementations live in adapters/aws and adapters/local.
 */

/** Queues between stages: ping ingestion -> incidents -> alert delivery. At-least-once. */
export const QUEUE_NAMES = ['incidents', 'alerts'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** `receiveCount` counts this delivery too (SQS ApproximateReceiveCount); absent when unknown. */
export type QueueMessage = { id: string; body: unknown; receiveCount?: number };

/** Receives before a message is parked in its dead-letter queue, on AWS and locally alike. */
export const MAX_RECEIVE_COUNT = 5;
/** Longest a queue consumer may run; the visibility timeout is six times that (AWS's advice for Lambda). */
export const CONSUMER_TIMEOUT_SECONDS = 30;
export const VISIBILITY_TIMEOUT_SECONDS = 6 * CONSUMER_TIMEOUT_SECONDS;

export interface Queue {
  /** Sends each body as one message. Consumers must be idempotent. */
  publish(queue: QueueName, bodies: unknown[]): Promise<void>;
  /**
   * Takes messages an outbox owes straight to this process's own consumer of `queue`, delivered in
   * its batches like published ones but never written to the queue's store; false where this
   * runtime has no consumer of `queue` (AWS: another Lambda), and the caller publishes instead. The
   * outbox entries are the messages' durable copy until `settle` (core/outbox/relay.ts
   * handOffAfterWrite). Only a runtime whose consumers share the writer's process has it.
   */
  handOff?(queue: QueueName, handed: HandedMessages): boolean;
  /** Whether a message with this id was handed off and not yet settled (the outbox sweep leaves it alone). */
  holds?(id: string): boolean;
}

/**
 * Messages handed to a consumer in this process (`Queue.handOff`), by their outbox entries' ids.
 * `settle` runs once they were delivered, with the ids the consumer finished; it clears those from
 * the outbox and publishes the rest, and never throws. `item` names the item whose outbox owes
 * them: the settles of one item run in the order it handed them off, those of different items at
 * once. Hand-offs that name none settle one after another.
 */
export type HandedMessages = { messages: readonly { id: string; body: unknown }[]; item?: string; settle(handled: ReadonlySet<string>): Promise<void> };

/**
 * What a consumer says about a batch: the ids that failed (retried later, with backoff: see
 * `retry.ts`), and for some of them the seconds the other side asked us to wait (Retry-After),
 * which the retry never comes sooner than.
 */
export type ConsumerResult = { failedIds: string[]; retryAfterSeconds?: Record<string, number> };

/** A consumer gets a batch and returns the ids of the messages that failed. */
export type QueueConsumer = (messages: QueueMessage[]) => Promise<ConsumerResult>;

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

/**
 * A stream event on a channel (`workspace:<id>`, `statuspage:<id>`). `topic` narrows it within the
 * channel (`check:<id>`), so a connection filtered to one check is addressed without reading the
 * channel's other listeners.
 */
export type BroadcastEvent = { channel: string; type: string; data: unknown; topic?: string };

/** What a stream connection listens to: a channel, and in it one topic or all of them. */
export type Subscription = { channel: string; topic: string };
export const ALL_TOPICS = '*';

/** The one scoping rule of both runtimes: the local hub applies it in memory, AWS keys rows by it. */
export const hears = (subscriptions: readonly Subscription[], event: BroadcastEvent): boolean =>
  subscriptions.some((s) => s.channel === event.channel && (s.topic === ALL_TOPICS || s.topic === event.topic));

/** A WebSocket message, on AWS and locally: `{event, data}`, the SSE stream's event name and data. */
export const streamMessage = (event: Pick<BroadcastEvent, 'type' | 'data'>): string => JSON.stringify({ event: event.type, data: event.data });

export interface Broadcaster {
  publish(event: BroadcastEvent): Promise<void>;
  /**
   * Ends every open stream of a user, on whatever transport: their access changed (membership
   * removed, logout everywhere, password change) and a stream must not outlive it.
   */
  closeUserStreams(userId: number): Promise<void>;
  /** Ends the streams opened with one sign-in's access tokens (a logout with its refresh token). */
  closeSessionStreams(userId: number, sessionId: string): Promise<void>;
  /**
   * Ends every stream of a status page whose access rule became stricter (PRIVATE, disabled,
   * deleted, a new password). Clients reconnect and are checked again, as at any connect.
   */
  closePageStreams(statusPageId: number): Promise<void>;
}

export type MailMessage = {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra headers, e.g. RFC 8058 `List-Unsubscribe` and `List-Unsubscribe-Post` on subscriber mail. */
  headers?: Record<string, string>;
};

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** One text message to one phone number (E.164, `+` and digits). */
export type SmsMessage = { to: string; text: string };

/** SMS alert channels: SNS on AWS, the log (and an outbox) in the embedded runtime. */
export interface SmsSender {
  send(message: SmsMessage): Promise<void>;
}
