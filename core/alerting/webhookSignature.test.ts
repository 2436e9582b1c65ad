import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, signWebhook, verifyWebhook, webhookSignature } from './webhookSignature.js';

describe('Standard Webhooks signature', () => {
  it('matches the example published with the Standard Webhooks specification', () => {
    // Secret, id, timestamp, payload and signature as given in the standard-webhooks repository's examples.
    const signature = webhookSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('equals an HMAC-SHA256 computed independently over id.timestamp.body', () => {
    const key = Buffer.from('0123456789abcdef0123456789abcdef');
    const secret = `whsec_${key.toString('base64')}`;
    const body = '{"type":"incident.opened","data":{"id":7}}';
    const expected = createHmac('sha256', key).update(`msg_1.1700000000.${body}`).digest('base64');
    const headers = signWebhook(secret, 'msg_1', 1700000000, body);
    expect(headers).toEqual({ 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': `v1,${expected}` });
  });

  it('signs with every secret during rotation, space-separated', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    const headers = signWebhook([a, b], 'msg_2', 1700000000, 'x');
    expect(headers['webhook-signature'].split(' ')).toEqual([webhookSignature(a, 'msg_2', 1700000000, 'x'), webhookSignature(b, 'msg_2', 1700000000, 'x')]);
    expect(verifyWebhook(b, headers, 'x', 1700000000)).toBe(true);
  });

  it('generates whsec_ secrets of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it('verifies only an untampered message inside the tolerance window', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook(secret, 'msg_3', 1700000000, 'body');
    expect(verifyWebhook(secret, headers, 'body', 1700000100)).toBe(true);
    expect(verifyWebhook(secret, headers, 'body!', 1700000100)).toBe(false);
    expect(verifyWebhook(generateWebhookSecret(), headers, 'body', 1700000100)).toBe(false);
    expect(verifyWebhook(secret, headers, 'body', 1700000000 + 301)).toBe(false);
    expect(verifyWebhook(secret, { ...headers, 'webhook-id': 'msg_4' }, 'body', 1700000000)).toBe(false);
    expect(verifyWebhook(secret, { ...headers, 'webhook-signature': undefined }, 'body', 1700000000)).toBe(false);
  });
});
