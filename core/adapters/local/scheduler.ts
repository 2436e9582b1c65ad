import type { ScheduleSpec, Scheduler } from '../../ports/index.js';

export type ScheduleRunner = (schedule: ScheduleSpec) => Promise<void>;

/**
 * Runs every enabled schedule at its rate, in-process. Timers start only after `start()` (the
 * local server); tests call `runAll()` to fire each enabled schedule once.
 */
export class LocalScheduler implements Scheduler {
  readonly schedules = new Map<string, ScheduleSpec>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private runner: ScheduleRunner | undefined;

  async upsert(schedule: ScheduleSpec): Promise<void> {
    this.schedules.set(schedule.name, schedule);
    this.arm(schedule);
  }

  async remove(name: string): Promise<void> {
    this.schedules.delete(name);
    this.disarm(name);
  }

  start(runner: ScheduleRunner): void {
    this.runner = runner;
    for (const schedule of this.schedules.values()) this.arm(schedule);
  }

  stop(): void {
    for (const name of [...this.timers.keys()]) this.disarm(name);
    this.runner = undefined;
  }

  async runAll(runner: ScheduleRunner): Promise<void> {
    for (const schedule of this.schedules.values()) if (schedule.enabled) await runner(schedule);
  }

  private arm(schedule: ScheduleSpec): void {
    this.disarm(schedule.name);
    const runner = this.runner;
    if (!runner || !schedule.enabled) return;
    const timer = setInterval(() => {
      void runner(schedule).catch((err: unknown) => console.error(`schedule ${schedule.name} failed`, err));
    }, schedule.everySeconds * 1000);
    timer.unref();
    this.timers.set(schedule.name, timer);
  }

  private disarm(name: string): void {
    const timer = this.timers.get(name);
    if (timer) clearInterval(timer);
    this.timers.delete(name);
  }
}
