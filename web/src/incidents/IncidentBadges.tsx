import type { IncidentState, Severity } from './api';

/** A shape per state as well as a colour, so the state reads without colour vision. */
const STATE: Record<IncidentState, { icon: string; label: string }> = {
  ACTIVE: { icon: '!', label: 'Active' },
  MONITORING: { icon: '◔', label: 'Monitoring' },
  RESOLVED: { icon: '✓', label: 'Resolved' },
};

export function StateBadge({ state }: { state: IncidentState }) {
  const look = STATE[state];
  return (
    <span className={`status incident-${state.toLowerCase()}`} data-state={state}>
      <span aria-hidden="true" className="status-icon">
        {look.icon}
      </span>
      {look.label}
    </span>
  );
}

const SEVERITY: Record<Severity, string> = { P1: 'P1 critical', P2: 'P2 high', P3: 'P3 medium', P4: 'P4 low' };

export function SeverityBadge({ severity }: { severity: Severity }) {
  return (
    <span className={`severity severity-${severity.toLowerCase()}`} data-severity={severity}>
      <span aria-hidden="true">{'▲'.repeat(5 - Number(severity.slice(1)))} </span>
      {SEVERITY[severity]}
    </span>
  );
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A date as people read it, with the exact instant in the machine-readable attribute. */
export function When({ iso }: { iso: string }) {
  return <time dateTime={iso}>{dateFormat.format(new Date(iso))}</time>;
}

/**
 * "3 h 12 min" between two instants the server gave (never the browser's clock, which may disagree
 * with the server's: an open incident says "since <date>" instead).
 */
export function duration(fromIso: string, toIso: string): string {
  const ms = Math.max(0, Date.parse(toIso) - Date.parse(fromIso));
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'under a minute';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  return [days ? `${days} d` : '', hours ? `${hours} h` : '', rest && !days ? `${rest} min` : ''].filter(Boolean).join(' ');
}
