import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { SmsMessage, SmsSender } from '../../ports/index.js';

/**
 * The `SmsSender` port on SNS: a direct Publish to a phone number (no topic). `Transactional`
 * asks SNS for the route built for time-critical messages (an alert), not the cheaper promotional one.
 */
export class SnsSms implements SmsSender {
  constructor(private readonly client: SNSClient) {}

  async send(message: SmsMessage): Promise<void> {
    await this.client.send(
      new PublishCommand({
        PhoneNumber: message.to,
        Message: message.text,
        MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } },
      }),
    );
  }
}
