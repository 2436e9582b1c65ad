import { systemClock, type Clock } from '../../clock.js';
import type { MailMessage, Mailer } from '../../ports/index.js';

/** Local mail goes to an outbox you can read (and to the log), never to the network. */
export class OutboxMailer implements Mailer {
  readonly outbox: (MailMessage & { sentAt: string })[] = [];
  constructor(private readonly options: { log: boolean; clock?: Clock } = { log: false }) {}

  async send(message: MailMessage): Promise<void> {
    this.outbox.push({ ...message, sentAt: (this.options.clock ?? systemClock).now().toISOString() });
    if (this.options.log) console.log(`[mail] to=${message.to} subject=${JSON.stringify(message.subject)}`);
  }
}
