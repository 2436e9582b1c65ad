import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { vigilRun } from './vigilRun.js';

/** `vigil-run` on the real process: ends the way the wrapped command ended. */
const outcome = await vigilRun(process.argv.slice(2), {
  env: process.env,
  fetch,
  spawn,
  stdout: process.stdout,
  stderr: process.stderr,
  onSignal: (signal, handler) => {
    process.on(signal, handler);
    return () => process.off(signal, handler);
  },
  sleep: (ms) => sleep(ms),
  randomUUID,
});
if (outcome.signal) {
  // Killed by a signal: die of the same one (handlers are gone), so the caller sees what it would
  // have seen running the command itself.
  process.kill(process.pid, outcome.signal);
} else {
  process.exitCode = outcome.code ?? 1;
}
