import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../clock.js';
import { OutboxSms } from './sms.js';

describe('OutboxSms (the embedded runtime sends no SMS)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('keeps each text in its outbox and writes it to the log, as local mail is', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const sms = new OutboxSms({ log: true, clock: new ManualClock('2026-03-01T12:00:00.000Z') });
    await sms.send({ to: '+447700900123', text: 'Vigil: [P1] Incident opened: api\nhttps://vigil.example/a' });
    expect(sms.outbox).toEqual([{ to: '+447700900123', text: 'Vigil: [P1] Incident opened: api\nhttps://vigil.example/a', sentAt: '2026-03-01T12:00:00.000Z' }]);
    expect(log).toHaveBeenCalledWith('[sms] to=+447700900123 text="Vigil: [P1] Incident opened: api\\nhttps://vigil.example/a"');
  });

  it('stays quiet in tests (no log) but still keeps the outbox', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const sms = new OutboxSms();
    await sms.send({ to: '+15005550006', text: 't' });
    expect(sms.outbox).toHaveLength(1);
    expect(log).not.toHaveBeenCalled();
  });
});
