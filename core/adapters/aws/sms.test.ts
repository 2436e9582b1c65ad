import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { SnsSms } from './sms.js';

describe('SnsSms', () => {
  const client = new SNSClient({ region: 'us-east-1' });
  const sns = mockClient(client);

  beforeEach(() => {
    sns.reset();
    sns.on(PublishCommand).resolves({ MessageId: 'sms-1' });
  });

  it('publishes straight to the phone number as a transactional SMS', async () => {
    await new SnsSms(client).send({ to: '+447700900123', text: '[P1] Vigil: api is down' });
    expect(sns.commandCalls(PublishCommand)[0]?.args[0].input).toEqual({
      PhoneNumber: '+447700900123',
      Message: '[P1] Vigil: api is down',
      MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } },
    });
  });

  it('surfaces SNS failures to the caller (alert delivery retries them)', async () => {
    sns.on(PublishCommand).rejects(new Error('Throttling: Rate exceeded'));
    await expect(new SnsSms(client).send({ to: '+447700900123', text: 't' })).rejects.toThrow('Throttling');
  });
});
