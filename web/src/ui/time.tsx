const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/** "3 minutes ago" / "in 2 hours", for a time near now. */
export function relativeTime(iso: string, now = Date.now()): string {
  const diff = new Date(iso).getTime() - now;
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) >= ms || unit === 'second') return relative.format(Math.round(diff / ms), unit);
  }
  return '';
}

export const absoluteTime = (iso: string): string => absolute.format(new Date(iso));

/**
 * A time as words, with the exact time on hover and for machines; "—" (labelled "never") when
 * absent. `past`: an event that has happened (a ping, a run), so a server clock a little ahead of
 * this computer's reads "just now", never "in 2 minutes".
 */
export function Time({ iso, never = 'never', past = false }: { iso: string | null | undefined; never?: string; past?: boolean }) {
  if (!iso) return <span aria-label={never}>—</span>;
  const ahead = past && new Date(iso).getTime() > Date.now();
  return (
    <time dateTime={iso} title={absoluteTime(iso)}>
      {ahead ? 'just now' : relativeTime(iso)}
    </time>
  );
}
