import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import type { MailMessage, Mailer } from '../../ports/index.js';

export type SesMailerOptions = {
  /** A verified SES identity (address or an address of a verified domain). */
  from: string;
  configurationSet?: string | undefined;
};

/** The `Mailer` port on SES v2. */
export class SesMailer implements Mailer {
  constructor(
    private readonly client: SESv2Client,
    private readonly options: SesMailerOptions,
  ) {}

  async send(message: MailMessage): Promise<void> {
    const utf8 = (data: string) => ({ Data: data, Charset: 'UTF-8' });
    await this.client.send(
      new SendEmailCommand({
        FromEmailAddress: this.options.from,
        Destination: { ToAddresses: [message.to] },
        Content: {
          Simple: {
            Subject: utf8(message.subject),
            Body: { Text: utf8(message.text), ...(message.html !== undefined ? { Html: utf8(message.html) } : {}) },
            ...(message.headers ? { Headers: Object.entries(message.headers).map(([Name, Value]) => ({ Name, Value })) } : {}),
          },
        },
        ...(this.options.configurationSet ? { ConfigurationSetName: this.options.configurationSet } : {}),
      }),
    );
  }
}
