/**
 * "Since when" for the detail page's status line, from what the page already reads (the check and
 * its newest incidents): the check stores no "status changed at". Each wording claims only what
 * the data shows; when it shows nothing, there is no line.
 */
type Status = 'NEW' | 'OK' | 'LATE' | 'DOWN' | 'PAUSED' | 'RESUMED';
export type SinceCheck = { status: Status; createdAt: string; updatedAt: string };
export type SinceIncident = { state: string; startedAt: string; resolvedAt: string | null; recoveredAt: string | null };
/** Shown as `${lead} <time>`. */
export type Since = { lead: string; at: string };

/** `incidents`: the check's incidents newest first (undefined while loading). */
export function sinceOf(check: SinceCheck, incidents: readonly SinceIncident[] | undefined): Since | null {
  // Pausing and resuming stamp updatedAt, so a paused check was paused at or before it.
  if (check.status === 'PAUSED') return { lead: 'since', at: check.updatedAt };
  if (incidents === undefined) return null;
  if (check.status === 'DOWN' || check.status === 'LATE') {
    const open = incidents.find((i) => i.state !== 'RESOLVED');
    return open ? { lead: 'since', at: open.startedAt } : null;
  }
  if (check.status !== 'OK') return null;
  const [newest] = incidents;
  // A NEW check turns OK on its first ping, and without an incident it never left OK since.
  if (newest === undefined) return { lead: 'no incident since it was created', at: check.createdAt };
  if (newest.state !== 'RESOLVED' || newest.resolvedAt === null) return null;
  // Up since the recovery only if nothing (a pause, a resume, an edit) touched the check after it.
  if (newest.recoveredAt !== null && Date.parse(check.updatedAt) <= Date.parse(newest.recoveredAt)) return { lead: 'up since', at: newest.recoveredAt };
  return { lead: 'last incident resolved', at: newest.resolvedAt };
}
