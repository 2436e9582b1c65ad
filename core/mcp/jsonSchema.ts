/**
 * Tool schemas in a one-type dialect: zod writes a nullable field of a plain type as a type array
 * (`{"type":["string","null"]}`), which clients that map JSON Schema to one type per field (the
 * MCP Inspector's strict mode, Gemini's function declarations) refuse, and with it every tool. The
 * same constraint as `anyOf` of single types (`{"anyOf":[{"type":"string"},{"type":"null"}]}`)
 * means the same and every client reads it.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function oneTypeSchema<T>(schema: T): T {
  return rewrite(schema as Json) as T;
}

function rewrite(node: Json): Json {
  if (Array.isArray(node)) return node.map(rewrite);
  if (typeof node !== 'object' || node === null) return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    // Only the keyword is an array: a property named "type" (inside `properties`) is a schema object.
    if (key === 'type' && Array.isArray(value)) continue;
    out[key] = rewrite(value);
  }
  const { type } = node;
  if (Array.isArray(type)) {
    const branches = type.map((member): Json => ({ type: member }));
    // Beside an `anyOf` of its own, both must hold: the types go in an `allOf` instead.
    if (out.anyOf === undefined) out.anyOf = branches;
    else out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { anyOf: branches }];
  }
  return out;
}
