import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { SesMailer } from './mailer.js';

describe('SesMailer', () => {
  const client = new SESv2Client({ region: 'us-east-1' });
  const ses = mockClient(client);

  beforeEach(() => {
    ses.reset();
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
  });

  it('sends text and HTML from the configured identity', async () => {
    await new SesMailer(client, { from: 'alerts@vigil.example', configurationSet: 'vigil' }).send({
      to: 'oncall@example.com',
      subject: 'Check "api" is DOWN',
      text: 'api is down',
      html: '<p>api is down</p>',
    });
    expect(ses.commandCalls(SendEmailCommand)[0]?.args[0].input).toEqual({
      FromEmailAddress: 'alerts@vigil.example',
      Destination: { ToAddresses: ['oncall@example.com'] },
      Content: {
        Simple: {
          Subject: { Data: 'Check "api" is DOWN', Charset: 'UTF-8' },
          Body: { Text: { Data: 'api is down', Charset: 'UTF-8' }, Html: { Data: '<p>api is down</p>', Charset: 'UTF-8' } },
        },
      },
      ConfigurationSetName: 'vigil',
    });
  });

  it('sends a text-only message without an Html part or configuration set', async () => {
    await new SesMailer(client, { from: 'alerts@vigil.example' }).send({ to: 'a@example.com', subject: 's', text: 't' });
    const input = ses.commandCalls(SendEmailCommand)[0]?.args[0].input;
    expect(input?.Content?.Simple?.Body).toEqual({ Text: { Data: 't', Charset: 'UTF-8' } });
    expect(input).not.toHaveProperty('ConfigurationSetName');
  });

  it('passes extra headers (RFC 8058 List-Unsubscribe on subscriber mail) as SES message headers', async () => {
    const headers = { 'List-Unsubscribe': '<https://vigil.example/u?token=1.x>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
    await new SesMailer(client, { from: 'alerts@vigil.example' }).send({ to: 'a@example.com', subject: 's', text: 't', headers });
    const input = ses.commandCalls(SendEmailCommand)[0]?.args[0].input;
    expect(input?.Content?.Simple?.Headers).toEqual([
      { Name: 'List-Unsubscribe', Value: '<https://vigil.example/u?token=1.x>' },
      { Name: 'List-Unsubscribe-Post', Value: 'List-Unsubscribe=One-Click' },
    ]);
  });

  it('surfaces SES failures to the caller (alert delivery retries them)', async () => {
    ses.on(SendEmailCommand).rejects(new Error('MessageRejected'));
    await expect(new SesMailer(client, { from: 'a@vigil.example' }).send({ to: 'b@example.com', subject: 's', text: 't' })).rejects.toThrow('MessageRejected');
  });
});
