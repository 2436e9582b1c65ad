import type { ApiKeyActor } from '../context.js';
import { badRequest } from '../http/errors.js';
import { TOOL_AREAS, type Tool, type ToolArea, type ToolKind } from './tool.js';
import { checkTools } from './tools/checks.js';
import { explainTools } from './tools/explain.js';
import { incidentTools } from './tools/incidents.js';
import { onCallTools } from './tools/onCall.js';
import { statusPageTools } from './tools/statusPages.js';
import { windowTools } from './tools/windows.js';
import { workspaceTools } from './tools/workspace.js';

/** Every tool, in the order tools/list shows them: orientation first, then by area. */
export const ALL_TOOLS: readonly Tool[] = [...workspaceTools, ...explainTools, ...checkTools, ...incidentTools, ...windowTools, ...statusPageTools, ...onCallTools];

const KINDS: readonly ToolKind[] = ['read', 'write'];

/**
 * `?tools=` narrows what a client loads, so a model is not handed every tool at once. A
 * comma-separated list of kinds (`read`, `write`), areas (`checks`, `incidents` ...) and tool
 * names: names and areas add tools, kinds keep only tools of that kind. `read,incidents` is the
 * read tools of incidents; `explain_check,list_checks` is just those two. Absent or `all`: every
 * tool the key may use. An unknown word is a 400, so a typo does not silently load nothing.
 */
export function selectTools(spec: string | undefined, key: Pick<ApiKeyActor, 'permission'>): Tool[] {
  // A read-only key never sees a write tool, whatever it asks for.
  const allowed = ALL_TOOLS.filter((tool) => key.permission === 'read_write' || tool.kind === 'read');
  const words = (spec ?? '')
    .split(',')
    .map((w) => w.trim().toLowerCase())
    .filter((w) => w.length > 0 && w !== 'all');
  if (words.length === 0) return allowed;

  const kinds = new Set<ToolKind>();
  const areas = new Set<ToolArea>();
  const names = new Set<string>();
  for (const word of words) {
    if ((KINDS as readonly string[]).includes(word)) kinds.add(word as ToolKind);
    else if ((TOOL_AREAS as readonly string[]).includes(word)) areas.add(word as ToolArea);
    else if (ALL_TOOLS.some((tool) => tool.name === word)) names.add(word);
    else {
      throw badRequest(`Unknown tool group "${word}"; use read, write, ${TOOL_AREAS.join(', ')} or tool names`, [{ path: 'tools', message: `unknown group "${word}"` }]);
    }
  }
  const picksByName = areas.size > 0 || names.size > 0;
  return allowed.filter((tool) => (!picksByName || areas.has(tool.area) || names.has(tool.name)) && (kinds.size === 0 || kinds.has(tool.kind)));
}

const WRITE_TOOLS = new Set(ALL_TOOLS.filter((tool) => tool.kind === 'write').map((tool) => tool.name));

/**
 * A read_only key's server has no write tools, so the SDK would answer a call to one "not
 * found", which reads like a typo. This answers it as the API would: refused, because the key is
 * read-only. A tool result (isError), not a protocol error, so the model sees the reason.
 */
export function readOnlyRefusal(message: unknown): { jsonrpc: '2.0'; id: string | number; result: { isError: true; content: { type: 'text'; text: string }[] } } | null {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
  const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
  if (method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) return null;
  const name = typeof params === 'object' && params !== null ? (params as { name?: unknown }).name : undefined;
  if (typeof name !== 'string' || !WRITE_TOOLS.has(name)) return null;
  const text = `This API key is read-only: ${name} changes the workspace and needs a read_write key (403 FORBIDDEN)`;
  return { jsonrpc: '2.0', id, result: { isError: true, content: [{ type: 'text', text }] } };
}
