import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { emailChannel, mailTo } from '../../test/support/alerting.js';
import { createCheck, deliver, statusChanged, type User } from '../../test/support/incidents.js';
import { meterStore } from '../../test/support/meter.js';
import { newBatchReads } from '../store/batchReads.js';
import { alertCheckOf, knownAlertCheck } from './alertCheck.js';
import { statusChangedMessage } from './statusMessage.js';

/**
 * An incident alert's check (its name and mute): read once per batch, or taken from the flip that
 * owed the alert, whose message carries the check as its write saw it. A message owed before the
 * mute was carried reads the check, as every alert did.
 */
let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('alert-check');
});

describe("an alert's check", () => {
  it("is carried by a flip's message from the whole check, and not by a ping's", () => {
    const at = t.clock.now();
    const whole = { checkId: 7, workspaceId: 1, projectId: 2, name: 'backup', lateSeverity: 'P3', downSeverity: 'P1', muteNotifications: true } as const;
    expect(statusChangedMessage(whole, 'OK', 'LATE', 'SWEEP', at).check).toEqual({ name: 'backup', lateSeverity: 'P3', downSeverity: 'P1', muted: true });
    expect(statusChangedMessage({ ...whole, muteNotifications: false }, 'LATE', 'DOWN', 'SWEEP', at).check?.muted).toBe(false);
    expect(statusChangedMessage({ checkId: 7, workspaceId: 1, projectId: 2 }, 'LATE', 'OK', 'PING', at).check).toBeUndefined();
  });

  it('is read once per batch, and not at all when the batch knows it', async () => {
    const check = await createCheck(t, user, { muteNotifications: true });
    const reading = { ...t.deps, batchReads: newBatchReads() };
    const metered = meterStore(t.deps.store);
    try {
      expect(await alertCheckOf(reading, check.id)).toMatchObject({ checkId: check.id, muteNotifications: true });
      const reads = metered.requests.length;
      expect(reads).toBeGreaterThan(0);
      await alertCheckOf(reading, check.id);
      expect(metered.requests).toHaveLength(reads);

      const knowing = { ...t.deps, batchReads: newBatchReads() };
      knownAlertCheck(knowing, { checkId: check.id, name: check.name, muteNotifications: false });
      expect(await alertCheckOf(knowing, check.id)).toEqual({ checkId: check.id, name: check.name, muteNotifications: false });
      expect(metered.requests).toHaveLength(reads);
    } finally {
      metered.stop();
    }
  });

  it("follows the mute the flip's message carries, or the stored one when the message carries none", async () => {
    const { email } = await emailChannel(t, user);
    const snapshot = (muted?: boolean) => ({ name: 'carried', lateSeverity: 'P3' as const, downSeverity: 'P1' as const, ...(muted === undefined ? {} : { muted }) });

    // Stored unmuted, flipped muted (a mute the sweep read before its write): nobody is told.
    const mutedAtFlip = await createCheck(t, user);
    await deliver(t, { ...statusChanged(mutedAtFlip, 'OK', 'DOWN', t.clock.now()), check: snapshot(true) });
    expect(mailTo(t, email)).toEqual([]);

    // Stored muted, and a message from before the mute was carried: the alert reads the check.
    const storedMute = await createCheck(t, user, { muteNotifications: true });
    await deliver(t, { ...statusChanged(storedMute, 'OK', 'DOWN', t.clock.now()), check: snapshot() });
    expect(mailTo(t, email)).toEqual([]);

    // Stored unmuted, flipped unmuted: told.
    const heard = await createCheck(t, user);
    await deliver(t, { ...statusChanged(heard, 'OK', 'DOWN', t.clock.now()), check: snapshot(false) });
    expect(mailTo(t, email).map((mail) => mail.subject)).toEqual([expect.stringContaining('carried is down')]);
  });
});
