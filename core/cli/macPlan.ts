import { HIDDEN, identityOf, type Item, NOUN, SECTIONS, type Section, shownIdentity, type VigilFile } from './macModel.js';

/**
 * The plan: what apply would do to make the workspace match the file, computed from the file and
 * the workspace in the same shape (pure; macApply.ts carries it out).
 *
 * - Only the sections the file has are managed: a file without `statusPages` leaves every page alone.
 * - A field the file leaves out is not managed either: Vigil keeps its value (its default on
 *   create). So a file written by hand stays short, and export (which writes every field) still
 *   round-trips. Maps named in EXACT_MAPS are the exception: a key removed from them is removed.
 * - An item in the workspace and not in the file is drift: reported, kept, deleted only with `--prune`.
 */
export type Change =
  | { action: 'create'; section: Section; identity: string; item: Item }
  | { action: 'update'; section: Section; identity: string; item: Item; current: Item; fields: string[] }
  | { action: 'delete'; section: Section; identity: string; current: Item }
  | { action: 'drift'; section: Section; identity: string; current: Item };

export type Plan = { changes: Change[]; unchanged: number };

/** Maps compared whole: a header removed from the file is removed from the check. */
const EXACT_MAPS = new Set(['customHeaders']);

const isPlain = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function sameExactly(a: unknown, b: unknown): boolean {
  // A null in the file clears a field; the workspace's shape leaves a cleared field out.
  if (b === HIDDEN || (a == null && b == null)) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameExactly(x, b[i]));
  if (isPlain(a)) {
    if (!isPlain(b) || Object.keys(a).length !== Object.keys(b).length) return false;
    return Object.entries(a).every(([k, v]) => k in b && sameExactly(v, b[k]));
  }
  return a === b;
}

/** The dotted paths of the fields the file states and the workspace holds otherwise. */
export function changedFields(desired: unknown, current: unknown, at = ''): string[] {
  if (current === HIDDEN) return [];
  if (isPlain(desired) && isPlain(current)) {
    return Object.entries(desired).flatMap(([key, value]) => {
      const path = at ? `${at}.${key}` : key;
      if (value === undefined) return [];
      if (EXACT_MAPS.has(key)) return sameExactly(value, current[key]) ? [] : [path];
      return changedFields(value, current[key], path);
    });
  }
  if (Array.isArray(desired) && Array.isArray(current) && desired.length === current.length)
    return desired.some((value, i) => changedFields(value, current[i]).length > 0) ? [at] : [];
  return sameExactly(desired, current) ? [] : [at || '(value)'];
}

/** Finds the workspace item a file item names: by identity, or a slug-less item of the same name. */
function matcher(section: Section, current: Item[]) {
  const byIdentity = new Map<string, Item>();
  for (const item of current) {
    const identity = identityOf(section, item);
    if (!byIdentity.has(identity)) byIdentity.set(identity, item);
  }
  return (item: Item): Item | undefined => {
    const found = byIdentity.get(identityOf(section, item));
    if (found) return found;
    return current.find((c) => (c.slug === undefined || c.slug === null) && c.name === item.name);
  };
}

/** The plan for `desired` (the file, references resolved) against `current` (the workspace). Throws on a file naming one item twice. */
export function planChanges(desired: VigilFile, current: VigilFile, options: { prune: boolean }): Plan {
  const changes: Change[] = [];
  const removals: Change[] = [];
  let unchanged = 0;
  for (const section of SECTIONS) {
    const wanted = desired[section];
    if (wanted === undefined) continue;
    const existing = current[section] ?? [];
    const find = matcher(section, existing);
    const seen = new Set<string>();
    const claimed = new Set<Item>();
    for (const item of wanted) {
      const identity = identityOf(section, item);
      if (seen.has(identity)) throw new Error(`${section}: two items are named ${shownIdentity(identity)}; each ${NOUN[section]} needs its own slug or name`);
      seen.add(identity);
      const match = find(item);
      if (!match) {
        changes.push({ action: 'create', section, identity, item });
        continue;
      }
      claimed.add(match);
      const fields = changedFields(item, match);
      if (fields.length === 0) unchanged++;
      else changes.push({ action: 'update', section, identity, item, current: match, fields });
    }
    for (const item of existing) {
      if (claimed.has(item)) continue;
      removals.push({ action: options.prune ? 'delete' : 'drift', section, identity: identityOf(section, item), current: item });
    }
  }
  // Deletes run last and in reverse: a check goes before the project it sits in.
  removals.sort((a, b) => SECTIONS.indexOf(b.section) - SECTIONS.indexOf(a.section));
  return { changes: [...changes, ...removals], unchanged };
}

/** Whether applying the plan would change anything (drift alone changes nothing). */
export const hasChanges = (plan: Plan) => plan.changes.some((change) => change.action !== 'drift');

/** The plan as a person reads it, one line per change, and the `--prune` deletions spelled out. */
export function formatPlan(plan: Plan): string {
  const lines: string[] = [];
  const counts = { create: 0, update: 0, delete: 0, drift: 0 };
  for (const change of plan.changes) {
    counts[change.action]++;
    const what = `${NOUN[change.section]} ${shownIdentity(change.identity)}`;
    if (change.action === 'create') lines.push(`  + create ${what}`);
    else if (change.action === 'update') lines.push(`  ~ update ${what}: ${change.fields.join(', ')}`);
    else if (change.action === 'delete') lines.push(`  - delete ${what}`);
    else lines.push(`  ! drift  ${what}: in the workspace, not in the file (kept; --prune would delete it)`);
  }
  const summary = `Plan: ${counts.create} to create, ${counts.update} to update, ${counts.delete} to delete, ${plan.unchanged} unchanged, ${counts.drift} drifted.`;
  return `${[...lines, summary].join('\n')}\n`;
}
