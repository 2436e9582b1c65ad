import type { CheckStatus } from './api';

/** A shape per status as well as a colour, so the state reads without colour vision. */
const LOOK: Record<CheckStatus, { icon: string; label: string }> = {
  OK: { icon: '✓', label: 'Up' },
  LATE: { icon: '◷', label: 'Late' },
  DOWN: { icon: '✕', label: 'Down' },
  PAUSED: { icon: '❚❚', label: 'Paused' },
  NEW: { icon: '○', label: 'New' },
  RESUMED: { icon: '↻', label: 'Resumed' },
};

export const STATUS_OPTIONS = Object.entries(LOOK).map(([value, look]) => ({ value: value as CheckStatus, label: look.label }));

export function StatusBadge({ status }: { status: CheckStatus }) {
  const look = LOOK[status];
  return (
    <span className={`status status-${status.toLowerCase()}`} data-status={status}>
      <span aria-hidden="true" className="status-icon">
        {look.icon}
      </span>
      {look.label}
    </span>
  );
}
