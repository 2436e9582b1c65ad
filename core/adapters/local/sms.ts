import { systemClock, type Clock } from '../../clock.js';
import type { SmsMessage, SmsSender } from '../../ports/index.js';

/** Local text messages go to an outbox you can read (and to the log), never to a phone. */
export class OutboxSms implements SmsSender {
  readonly outbox: (SmsMessage & { sentAt: string })[] = [];
  constructor(private readonly options: { log: boolean; clock?: Clock } = { log: false }) {}

  async send(message: SmsMessage): Promise<void> {
    this.outbox.push({ ...message, sentAt: (this.options.clock ?? systemClock).now().toISOString() });
    if (this.options.log) console.log(`[sms] to=${message.to} text=${JSON.stringify(message.text)}`);
  }
}
