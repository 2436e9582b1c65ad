import { z } from '@hono/zod-openapi';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, Tool as ListedTool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { oneTypeSchema } from './jsonSchema.js';
import type { Ctx } from '../context.js';
import { HttpError } from '../http/errors.js';

/** The areas a client can load on their own (`?tools=incidents,checks`). */
export const TOOL_AREAS = ['workspace', 'projects', 'checks', 'incidents', 'deployments', 'maintenance', 'statuspages', 'oncall'] as const;
export type ToolArea = (typeof TOOL_AREAS)[number];
export type ToolKind = 'read' | 'write';

/** What a write does to the workspace, said once per tool and turned into the MCP hints. */
export type WriteEffect = {
  /** Ends, stops or silences something (a client should confirm first); false: only adds or restores. */
  destructive: boolean;
  /** Calling again with the same arguments changes nothing more. */
  idempotent: boolean;
};

export type ToolOutcome<T> = { data: T; text: string };

export type ToolSpec<I extends z.ZodObject, O extends z.ZodObject> = {
  name: string;
  area: ToolArea;
  title: string;
  description: string;
  input: I;
  output: O;
  effect: 'read' | WriteEffect;
  run: (ctx: Ctx, args: z.output<I>) => Promise<ToolOutcome<z.output<O>>>;
};

/** A tool with its types erased, so tools of different shapes sit in one list. */
export type Tool = {
  name: string;
  area: ToolArea;
  kind: ToolKind;
  annotations: ToolAnnotations;
  register(server: McpServer, ctx: Ctx): void;
  /** The tool as tools/list shows it (see server.ts). */
  listing(): ListedTool;
};

function annotationsOf(effect: ToolSpec<z.ZodObject, z.ZodObject>['effect'], title: string): ToolAnnotations {
  // Every tool acts on this Vigil workspace only: none reaches an open world of outside systems.
  if (effect === 'read') return { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  return { title, readOnlyHint: false, destructiveHint: effect.destructive, idempotentHint: effect.idempotent, openWorldHint: false };
}

/**
 * A failure as the assistant should see it: a tool result with `isError` and the API's own
 * message and code, never a stack trace. Anything that is not an HttpError is our bug: logged,
 * and reported as the API would report it (500).
 */
export function toolError(err: unknown): CallToolResult {
  if (err instanceof HttpError) {
    const details = (err.details ?? []).map((d) => `${d.path}: ${d.message}`);
    const text = [`${err.message} (${err.status} ${err.code})`, ...details].join('\n');
    return { isError: true, content: [{ type: 'text', text }] };
  }
  console.error('mcp tool failed', err);
  return { isError: true, content: [{ type: 'text', text: 'Internal server error (500 INTERNAL)' }] };
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>): Tool {
  const annotations = annotationsOf(spec.effect, spec.title);
  let listed: ListedTool | undefined;
  return {
    name: spec.name,
    area: spec.area,
    kind: spec.effect === 'read' ? 'read' : 'write',
    annotations,
    listing() {
      // The schemas never change: converted once per process, not on every tools/list.
      listed ??= {
        name: spec.name,
        title: spec.title,
        description: spec.description,
        inputSchema: oneTypeSchema(z.toJSONSchema(spec.input, { target: 'draft-7', io: 'input' })) as ListedTool['inputSchema'],
        outputSchema: oneTypeSchema(z.toJSONSchema(spec.output, { target: 'draft-7', io: 'output' })) as ListedTool['outputSchema'],
        annotations,
        // What the SDK lists for a tool registered without task support.
        execution: { taskSupport: 'forbidden' },
      };
      return listed;
    },
    register(server, ctx) {
      const input: z.ZodObject = spec.input;
      const output: z.ZodObject = spec.output;
      const config = { title: spec.title, description: spec.description, inputSchema: input, outputSchema: output, annotations };
      server.registerTool(spec.name, config, async (args): Promise<CallToolResult> => {
        try {
          // The SDK has parsed `args` with spec.input before calling; its types only lost the generic.
          const { data, text } = await spec.run(ctx, args as z.output<I>);
          // The compact rendering comes first: many clients show only the text to the model.
          return { content: [{ type: 'text', text }], structuredContent: data };
        } catch (err) {
          return toolError(err);
        }
      });
    },
  };
}
