/**
 * A strict reader of the Prometheus text exposition format 0.0.4, for tests: every line must be a
 * HELP, a TYPE, another comment, blank, or a sample `name{label="value",...} value [timestamp]`.
 * TYPE comes at most once per family and before its samples, samples of a family are contiguous,
 * and no series repeats. Anything else throws with the line number. (No maintained parser is
 * installed: parse-prometheus-text-format on npm would do, and is not a dependency.)
 */

export type Sample = { name: string; labels: Record<string, string>; value: number };
export type Family = { name: string; help?: string; type?: string; samples: Sample[] };

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES = ['_bucket', '_sum', '_count', '_total', '_created'];

export function parseExposition(text: string): Map<string, Family> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('exposition must end with a newline');
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  const closed = new Set<string>();
  let current: string | undefined;
  const family = (name: string): Family => {
    let found = families.get(name);
    if (!found) families.set(name, (found = { name, samples: [] }));
    return found;
  };
  const lines = text.split('\n').slice(0, -1);
  lines.forEach((line, index) => {
    const fail = (why: string): never => {
      throw new Error(`line ${index + 1}: ${why}: ${JSON.stringify(line)}`);
    };
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const meta = /^# (HELP|TYPE) ([^ ]+) ?(.*)$/.exec(line);
      if (!meta) return; // a plain comment
      const [, kind, name = '', rest = ''] = meta;
      if (!METRIC_NAME.test(name) || METRIC_NAME.exec(name)?.[0] !== name) fail('bad metric name');
      const target = family(name);
      if (kind === 'HELP') {
        if (target.help !== undefined) fail('second HELP');
        target.help = unescape(rest, false, fail);
      } else {
        if (target.type !== undefined) fail('second TYPE');
        if (target.samples.length > 0) fail('TYPE after samples');
        if (!TYPES.has(rest)) fail('unknown type');
        target.type = rest;
      }
      return;
    }
    const sample = parseSample(line, fail);
    const owner = familyOf(sample.name, families);
    if (owner !== current) {
      if (current !== undefined) closed.add(current);
      if (closed.has(owner)) fail('samples of a family are not contiguous');
      current = owner;
    }
    const series = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seen.has(series)) fail('duplicate series');
    seen.add(series);
    family(owner).samples.push(sample);
  });
  return families;
}

function familyOf(sampleName: string, families: Map<string, Family>): string {
  if (families.get(sampleName)?.type !== undefined) return sampleName;
  for (const suffix of SUFFIXES) {
    const base = sampleName.endsWith(suffix) ? sampleName.slice(0, -suffix.length) : undefined;
    if (base !== undefined && families.get(base)?.type !== undefined) return base;
  }
  return sampleName;
}

function parseSample(line: string, fail: (why: string) => never): Sample {
  const name = METRIC_NAME.exec(line)?.[0] ?? fail('bad metric name');
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    rest = rest.slice(1);
    while (!rest.startsWith('}')) {
      const label = LABEL_NAME.exec(rest)?.[0] ?? fail('bad label name');
      rest = rest.slice(label.length);
      if (!rest.startsWith('="')) fail('expected =" after a label name');
      rest = rest.slice(2);
      let raw = '';
      for (;;) {
        const char = rest[0] ?? fail('unterminated label value');
        if (char === '"') break;
        if (char === '\n') fail('raw newline in a label value');
        if (char === '\\') {
          raw += rest.slice(0, 2);
          rest = rest.slice(2);
        } else {
          raw += char;
          rest = rest.slice(1);
        }
      }
      rest = rest.slice(1);
      if (label in labels) fail('repeated label');
      labels[label] = unescape(raw, true, fail);
      if (rest.startsWith(',')) rest = rest.slice(1);
      else if (!rest.startsWith('}')) fail('expected , or } after a label');
    }
    rest = rest.slice(1);
  }
  const parts = /^ ([^ ]+)(?: (-?[0-9]+))?$/.exec(rest) ?? fail('expected " value [timestamp]"');
  const value = parseValue(parts[1] ?? '', fail);
  return { name, labels, value };
}

function parseValue(text: string, fail: (why: string) => never): number {
  if (text === 'NaN') return Number.NaN;
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (!/^[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/.test(text)) fail('bad sample value');
  return Number(text);
}

/** HELP escapes `\\` and `\n`; label values also `\"`. Any other escape is malformed. */
function unescape(text: string, quotes: boolean, fail: (why: string) => never): string {
  return text.replace(/\\(.?)/g, (_, next: string) => {
    if (next === '\\') return '\\';
    if (next === 'n') return '\n';
    if (next === '"' && quotes) return '"';
    return fail(`bad escape \\${next}`);
  });
}

/** The value of the one sample of `name` whose labels include `labels`; throws unless exactly one. */
export function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const matches = [...families.values()].flatMap((f) => f.samples).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (matches.length !== 1) throw new Error(`${matches.length} samples of ${name} ${JSON.stringify(labels)}`);
  return matches[0]?.value ?? Number.NaN;
}

export const samplesOf = (families: Map<string, Family>, name: string): Sample[] => families.get(name)?.samples ?? [];
