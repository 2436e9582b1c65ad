/**
 * The bench's sections, each with a ceiling: about three times what it took on the project's 2-core
 * development machine, so a slower or fuller 2-core machine still finishes, and a hung section is
 * stopped at its own ceiling, named, instead of at the end of the whole run. Each section prints
 * `section: <name>` before its figures and `section_seconds_<name>` after them; tighten a ceiling
 * from those.
 */
export const SECTION_CEILING_SECONDS = {
  cold: 90,
  // The native ping load, then the Healthchecks-compatible path warmed and both driven in alternating legs.
  pings: 240,
  scale: 180,
  sweep: 60,
  streams: 90,
  pages: 90,
  outbox: 150,
  escalation: 120,
  // 105 Alertmanager notifications, each to its step-0 webhook.
  intake: 60,
  password: 180,
  // Real time: a warm-up and three 20 s intervals, 1% silent for three, the outage, the recovery.
  steady: 900,
  // Chromium against the local server: 10,000 checks seeded, 30 page loads, 30 live pings, then a
  // schedule with 50 overrides made over HTTP and 100 loads of its timeline.
  dashboard: 300,
  // `vigil apply` of 1,000 checks over HTTP in batches of 100 (at most one wait for the key's next
  // minute of requests), then the no-op re-apply.
  apply: 180,
} as const;

export type SectionName = keyof typeof SECTION_CEILING_SECONDS;
const NAMES = Object.keys(SECTION_CEILING_SECONDS) as SectionName[];
/** Starting and stopping the stores, around the sections. */
const SETUP_SECONDS = 30;

const isSection = (name: string): name is SectionName => (NAMES as string[]).includes(name);

/** `BENCH_ONLY=a,b` (all when unset); an unknown name is an error, not a silently empty run. */
export function selectSections(only: string | undefined): Set<SectionName> {
  if (only === undefined || only.trim() === '') return new Set(NAMES);
  const names = only
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !isSection(name));
  if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown section ${unknown.join(', ')}; sections: ${NAMES.join(', ')}`);
  return new Set(names.filter(isSection));
}

/**
 * Runs the selected sections' steps, each under its ceiling (scaled when BENCH_BUDGET_SECONDS sets
 * the whole budget). A section that throws is reported by name and the others still run; the
 * process then exits 1.
 */
export class SectionRunner {
  readonly failed: SectionName[] = [];
  readonly budgetSeconds: number;
  /** The section running now, for a message about the whole budget. */
  current: SectionName | 'setup' = 'setup';
  private readonly scale: number;

  constructor(
    readonly selected: ReadonlySet<SectionName>,
    budgetOverride: number | undefined,
  ) {
    const sum = SETUP_SECONDS + [...selected].reduce((total, name) => total + SECTION_CEILING_SECONDS[name], 0);
    this.budgetSeconds = budgetOverride ?? sum;
    this.scale = this.budgetSeconds / sum;
  }

  has(name: SectionName): boolean {
    return this.selected.has(name);
  }

  async run(name: SectionName, body: () => Promise<void>): Promise<void> {
    if (!this.selected.has(name)) return;
    const ceiling = Math.round(SECTION_CEILING_SECONDS[name] * this.scale);
    console.log(`section: ${name}`);
    this.current = name;
    const started = performance.now();
    const timer = setTimeout(() => {
      console.error(`bench: section ${name} over its ${ceiling}-second ceiling`);
      process.exit(1);
    }, ceiling * 1000);
    timer.unref();
    try {
      await body();
    } catch (err) {
      this.failed.push(name);
      console.error(`bench: section ${name} failed:`, err);
    } finally {
      clearTimeout(timer);
      this.current = 'setup';
      console.log(`section_seconds_${name}: ${((performance.now() - started) / 1000).toFixed(1)}`);
    }
  }
}
