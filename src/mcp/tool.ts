/**
 * An MCP tool declared as one literal: name, description, JSON Schema of its arguments (sent verbatim
 * as inputSchema and checked by ajv before `run`), and whether it only reads.
 */
import type { FromSchema, JsonSchema } from '../steps/schema-types.js';
import type { McpCore } from './core.js';
import type { ToolReply } from './format.js';

export interface ToolDefinition<S extends JsonSchema = JsonSchema> {
  /** snake_case, unique across steps and lifecycle tools. */
  name: string;
  description: string;
  inputSchema: S;
  /** MCP readOnlyHint: true when the tool does not change the app or the page. */
  readOnly: boolean;
  /** Called with arguments already validated against inputSchema. Never throws to the caller: the core turns a throw into an error reply. */
  run(core: McpCore, args: FromSchema<S>, ctx: ToolCallContext): Promise<ToolReply>;
}

/** What a long-running tool (perf_run) may use of the request: progress notifications and cancellation. */
export interface ToolCallContext {
  /** Present when the client sent a progressToken: sends notifications/progress. */
  progress?: (progress: number, total?: number, message?: string) => void;
  /** Aborted when the client cancels the request. */
  signal?: AbortSignal;
}

/** Identity with a precise type: the schema literal types the `run` arguments. */
export function defineTool<const S extends JsonSchema>(def: ToolDefinition<S>): ToolDefinition<S> {
  return def;
}
