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

const formats = new Map<string, Intl.DateTimeFormat>();
/** "Mon 23 Mar, 09:00" in the zone (a formatter per zone and style, reused). */
export function formatIn(ms: number, timeZone: string, style: 'dateTime' | 'day' | 'time' = 'dateTime'): string {
  const key = `${timeZone}|${style}`;
  let format = formats.get(key);
  if (!format) {
    const options: Intl.DateTimeFormatOptions =
      style === 'day'
        ? { weekday: 'short', day: 'numeric', month: 'short' }
        : style === 'time'
          ? { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }
          : { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
    format = new Intl.DateTimeFormat(undefined, { ...options, timeZone });
    formats.set(key, format);
  }
  return format.format(ms);
}

const clocks = new Map<string, Intl.DateTimeFormat>();
/** `09:00`: an instant's wall-clock time in the zone, the same in every locale (for data attributes and tests). */
export function wallClock(ms: number, timeZone: string): string {
  let format = clocks.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone });
    clocks.set(timeZone, format);
  }
  const parts = format.formatToParts(ms);
  return `${parts.find((p) => p.type === 'hour')?.value ?? '00'}:${parts.find((p) => p.type === 'minute')?.value ?? '00'}`;
}
