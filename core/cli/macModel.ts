/**
 * The monitoring-as-code file as the commands hold it (docs/guide/monitoring-as-code.md): plain
 * data with no numeric ids, each item named by its slug or its name. The same shape stands for
 * the file a user wrote and for the workspace as it is (read through /v1 and mapped by
 * macMapping.ts), so the plan (macPlan.ts) compares like with like.
 */

/** Sections in the order apply creates them: what a later section names must exist first. */
export const SECTIONS = ['projects', 'alertChannels', 'onCallSchedules', 'escalationPolicies', 'jobs', 'checks', 'statusPages', 'maintenanceWindows'] as const;
export type Section = (typeof SECTIONS)[number];

export type Item = Record<string, unknown>;
export type VigilFile = { version: 1 } & { [S in Section]?: Item[] };

/** One word per section for messages ("job", "check", ...). */
export const NOUN: Record<Section, string> = {
  projects: 'project',
  alertChannels: 'alert channel',
  onCallSchedules: 'on-call schedule',
  escalationPolicies: 'escalation policy',
  jobs: 'job',
  checks: 'check',
  statusPages: 'status page',
  maintenanceWindows: 'maintenance window',
};

/** Sections whose items carry a slug: a slug names the item, a name only when it has none. */
const SLUGGED: ReadonlySet<Section> = new Set(['jobs', 'checks', 'statusPages']);

/** An item's identity within its section: `slug:<slug>` when it has one, else `name:<name>`. */
export function identityOf(section: Section, item: Item): string {
  if (SLUGGED.has(section) && typeof item.slug === 'string' && item.slug !== '') return `slug:${item.slug}`;
  return `name:${String(item.name)}`;
}

/** How a person reads an identity in a plan: the slug or the quoted name. */
export const shownIdentity = (identity: string) => (identity.startsWith('slug:') ? identity.slice(5) : JSON.stringify(identity.slice(5)));

/**
 * A value Vigil will not show back (an alert channel's webhook URL or token, read with an API
 * key): the plan cannot compare it, and export writes a `${...}` reference in its place.
 */
export const HIDDEN = '\u0000hidden';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces every `${NAME}` in the file's strings with the environment's value. Returns the
 * names that are not set, so one message can list them all.
 */
export function resolveReferences<T>(value: T, env: Record<string, string | undefined>): { value: T; missing: string[] } {
  const missing = new Set<string>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string')
      return v.replace(REFERENCE, (whole, name: string) => {
        const found = env[name];
        if (found === undefined) missing.add(name);
        return found ?? whole;
      });
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, walk(inner)]));
    return v;
  };
  return { value: walk(value) as T, missing: [...missing].sort() };
}

/** An environment variable name for a secret export leaves out: VIGIL_<PARTS> in upper case. */
export const secretName = (...parts: string[]) =>
  `VIGIL_${parts
    .join('_')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')}`;
