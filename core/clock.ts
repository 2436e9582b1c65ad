/** Every unit of work reads the time once from a Clock; nothing in core calls `new Date()` itself. */
export type Clock = { now(): Date };

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can move by hand. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.current = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }
  advance(ms: number): void {
    this.current += ms;
  }
  advanceSeconds(seconds: number): void {
    this.advance(seconds * 1000);
  }
}
