import { Ajv, type ErrorObject } from 'ajv';
import { isMap, isSeq, LineCounter, parseDocument, stringify, type Node } from 'yaml';
import schema from '../http/vigil.schema.json';
import type { VigilFile } from './macModel.js';

/** Where the API serves core/http/vigil.schema.json, below VIGIL_API_URL (core/app.ts). */
export const SCHEMA_PATH = '/schemas/vigil.schema.json';

/** The comment the YAML language server reads to complete and check the file in an editor. */
export const schemaHeader = (apiBase: string) => `# yaml-language-server: $schema=${apiBase}${SCHEMA_PATH}\n`;

const validate = new Ajv({ allErrors: true, strict: true, strictRequired: false }).compile(schema);

export type FileError = { line: number; column: number; path: string; message: string };
export type Parsed = { ok: true; file: VigilFile } | { ok: false; errors: FileError[] };

/** The YAML node at an ajv instance path (`/jobs/0/name`), or the deepest one that exists. */
function nodeAt(root: Node | null, pointer: string): Node | null {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    let next: unknown;
    if (isMap(node)) next = node.items.find((pair) => (pair.key as { value?: unknown } | null)?.value === key)?.value;
    else if (isSeq(node)) next = node.items[Number(key)];
    if (!next || typeof next !== 'object') break;
    node = next as Node;
  }
  return node;
}

/** A key's own node, so "unknown field" points at the field rather than at its object. */
function keyNode(parent: Node | null, key: string): Node | null {
  if (!isMap(parent)) return parent;
  const pair = parent.items.find((p) => (p.key as { value?: unknown } | null)?.value === key);
  return (pair?.key as Node | undefined) ?? parent;
}

function describe(error: ErrorObject): { path: string; message: string; key?: string } {
  const path = error.instancePath.slice(1).replace(/\//g, '.') || '(file)';
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    const key = String(params.additionalProperty);
    return { path: path === '(file)' ? key : `${path}.${key}`, message: 'is not a field of this item', key };
  }
  if (error.keyword === 'required') return { path, message: `needs ${String(params.missingProperty)}` };
  if (error.keyword === 'enum') return { path, message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
  if (error.keyword === 'not') return { path, message: 'give intervalSeconds or schedule, not both' };
  return { path, message: error.message ?? 'is invalid' };
}

/** Reads a file's text: YAML errors and schema errors alike come back with their line and column. */
export function parseVigilFile(text: string): Parsed {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number) => lineCounter.linePos(offset);
  if (doc.errors.length > 0) {
    const errors = doc.errors.map((e) => {
      const { line, col } = at(e.pos[0]);
      return { line, column: col, path: '(yaml)', message: e.message.split('\n')[0] ?? e.message };
    });
    return { ok: false, errors };
  }
  const data: unknown = doc.toJS();
  if (validate(data)) return { ok: true, file: data as VigilFile };
  const seen = new Set<string>();
  const errors: FileError[] = [];
  for (const error of validate.errors ?? []) {
    const { path, message, key } = describe(error);
    const node = nodeAt(doc.contents, error.instancePath);
    const target = key ? keyNode(node, key) : node;
    const { line, col } = at(target?.range?.[0] ?? 0);
    const id = `${line}:${path}:${message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    errors.push({ line, column: col, path, message });
  }
  errors.sort((a, b) => a.line - b.line || a.column - b.column);
  return { ok: false, errors };
}

export const formatFileErrors = (name: string, errors: FileError[]) => errors.map((e) => `${name}:${e.line}:${e.column}: ${e.path}: ${e.message}`).join('\n');

/** The file as export writes it: the schema header, then plain block YAML. */
export const writeVigilFile = (file: VigilFile, apiBase: string) => `${schemaHeader(apiBase)}${stringify(file, { lineWidth: 0 })}`;
