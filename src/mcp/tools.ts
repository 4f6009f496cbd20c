/**
 * Every tool the MCP server offers: one per registered step (same name, description and JSON Schema,
 * generated, never restated), the lifecycle tools, and `run` for several step lines in one call.
 */
import { isPerfError, PerfError } from '../errors.js';
import { prepareArgs, type StepResult } from '../engine/run-step.js';
import { SNAPSHOT_ARG, type StepDefinition } from '../steps/define.js';
import { STEPS, mcpArgsSchema } from '../steps/registry.js';
import { okReply, stepReply, stepResultJson, type ReplyImage } from './format.js';
import { LIFECYCLE_TOOLS } from './lifecycle.js';
import { PERF_TOOLS } from './perf-tools.js';
import { perfBisectTool } from './bisect-tool.js';
import { STORAGE_TOOLS } from './storage-tools.js';
import { pagesTool } from './pages-tool.js';
import { perfHistoryTool } from './history-tool.js';
import { defineTool, type ToolDefinition } from './core.js';

/** The tool for one step: its inputSchema is the step's argument schema in its MCP form (registry.mcpArgsSchema). */
export function stepTool(def: StepDefinition<any>): ToolDefinition<any> {
  return {
    name: def.name,
    description: def.description,
    inputSchema: mcpArgsSchema(def),
    // Read-only to a client only when it changes nothing at all: not the page, and no file either.
    readOnly: def.readOnly && def.writesFiles !== true,
    // The core checked the arguments against this inputSchema, the step's own: not again.
    run: async (core, args) => stepReply(await core.runStepCall(def.name, args, undefined, { validated: true })),
  };
}

// 100 lines: a long scripted interaction fits; more belongs in a scenario file (perf run).
const MAX_RUN_STEPS = 100;

export const runTool = defineTool({
  name: 'run',
  description: 'Several steps in one call, in order, all validated first; stops at the first failure unless continue.',
  inputSchema: {
    type: 'object',
    properties: {
      steps: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_RUN_STEPS,
        description: 'Step lines, e.g. {"tap": {"ref": "e5"}} or {"tap": "Add item"}.',
        items: { type: 'object', minProperties: 1, maxProperties: 1 },
      },
      continue: { type: 'boolean', description: 'Go on after a failure, reporting every result.' },
      snapshot: { ...SNAPSHOT_ARG, description: 'Page after the last step: full, or diff (changed lines).' },
    },
    required: ['steps'],
    additionalProperties: false,
  },
  readOnly: false,
  async run(core, args) {
    // Validate every line first: a typo in line 7 must not leave lines 1-6 half-applied.
    const lines: { name: string; args: Record<string, unknown> }[] = [];
    for (const [i, line] of args.steps.entries()) {
      const [name, raw] = Object.entries(line)[0]!;
      if (!core.isAllowed(name) && STEPS.some((s) => s.name === name)) {
        const denied = core.deniedError(name);
        throw new PerfError({ code: denied.code, message: `steps[${i}]: ${denied.message}`, suggestion: denied.suggestion });
      }
      try {
        lines.push({ name, args: prepareArgs(name, raw).args });
      } catch (e) {
        if (!isPerfError(e)) throw e;
        throw new PerfError({
          code: e.code,
          kind: e.kind,
          message: `steps[${i}]: ${e.message}`,
          suggestion: e.suggestion,
          candidates: e.candidates,
          cause: e,
        });
      }
    }
    const host = await core.host().catch((e: unknown) => {
      // Steps that need no page may still run without an app; anything else needs one.
      if (lines.every((l) => STEPS.find((s) => s.name === l.name)?.needsPage === false)) return undefined;
      throw e;
    });
    const results: StepResult[] = [];
    const images: ReplyImage[] = [];
    let firstFailure: { index: number; result: StepResult & { status: 'failed' } } | undefined;
    for (const [i, line] of lines.entries()) {
      const r = await core.runStepCall(line.name, line.args, host, { validated: true });
      results.push(r);
      if (r.status === 'ok' && r.image) images.push(r.image);
      if (r.status === 'failed') {
        firstFailure ??= { index: i, result: r };
        if (!args.continue) break;
      }
    }
    const json = results.map(stepResultJson);
    const counts = { ran: results.length, of: lines.length, failed: results.filter((r) => r.status === 'failed').length };
    // Act and see what changed in one call: the page after the last step, on success or failure.
    const after =
      args.snapshot && args.snapshot !== 'none' && host
        ? await core.runStepCall('snap', args.snapshot === 'diff' ? { diff: true } : {}, host)
        : undefined;
    const snapshot = after?.status === 'ok' ? { snapshot: after.data?.snapshot } : after ? { snapshotError: after.error.message } : {};
    if (firstFailure) {
      const { index, result } = firstFailure;
      const stopped = args.continue ? '' : ` (stopped; ${lines.length - results.length} later step(s) not run)`;
      return {
        kind: 'error',
        error: {
          ...result.error,
          message: `steps[${index}] ${result.step} failed: ${result.error.message}${stopped}`,
          ...counts,
          results: json,
          ...snapshot,
        },
        images,
      };
    }
    return okReply({ tool: 'run', status: 'ok', ...counts, results: json, ...snapshot }, images);
  },
});

/** Steps in registry order, then the lifecycle tools, then run, then perf_run / perf_compare. */
export function allTools(): ToolDefinition<any>[] {
  return [
    ...STEPS.filter((s) => s.mcp !== false).map(stepTool),
    ...LIFECYCLE_TOOLS,
    runTool,
    ...PERF_TOOLS,
    perfHistoryTool,
    perfBisectTool,
    ...STORAGE_TOOLS,
    pagesTool,
  ];
}
