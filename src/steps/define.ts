/**
 * A step is declared once with defineStep({...}); the scenario schema, the MCP tool list and the CLI
 * verbs are all generated from these declarations (src/steps/registry.ts lists them).
 */
import type { HostPage, PageDriver, PageFeature, PageTabs, TerminalDriver } from '../page/index.js';
import type { Effect } from '../page/actions.js';
import type { FromSchema, JsonSchema } from '../schema-types.js';
import type { HostState } from '../host-state.js';

export type { Effect, FromSchema, JsonSchema };
export { REF_SCHEMA, TARGET_ARGS, TARGET_BRIEF, TARGET_SCHEMA, type TargetSpec } from '../page/target-schema.js';

export interface StepOutput {
  /** The step's answer (JSON-serializable). */
  data?: Record<string, unknown>;
  effect?: Effect;
  /** Hints that do not fail the step (e.g. the page produced no frames). */
  warnings?: string[];
  /** Image content (screenshot), returned as MCP image content and saved by the CLI. */
  image?: { mimeType: 'image/png' | 'image/jpeg'; base64: string };
  /** Refs that were relocated because their element had left the DOM. */
  reresolved?: string[];
}

/**
 * Where a step runs: the page under test and a little per-page state. Implemented by the runner
 * (one per repeat), the MCP server and the CLI verbs (one per connected session).
 */
export interface StepHost {
  /** The page to act on; throws PerfError `no_app` when there is none yet. */
  page(): Promise<HostPage>;
  /** What the host drives: a page (the default) or a terminal program. */
  surface?(): 'page' | 'terminal';
  /** The terminal program to act on, when surface() is 'terminal'. */
  terminal?(): Promise<TerminalDriver>;
  /**
   * The browser's open pages (tabs, popups) and the selected one; undefined where there are none (a terminal).
   * `create` false: only when already tracked (tracking starts on first use).
   */
  pages?(create?: boolean): PageTabs | undefined;
  /** Base URL of the app, for steps given a path (navigate). Undefined when unknown. */
  appUrl(): string | undefined;
  /** Per-host state shared between steps (perf session, target refs…), in slots typed by the owning module. */
  state: HostState;
  /** Folder that relative output paths resolve against, and that written files must stay inside. */
  cwd: string;
}

export interface StepContext {
  host: StepHost;
  /** The page, as the steps may use it (no protocol, no send). */
  page: PageDriver;
  /** This step's time budget; steps that poll stop at this deadline. */
  timeoutMs: number;
  deadline: number;
  /** The step's label (for reports) and its index in the scenario, if any. */
  label: string;
  signal: AbortSignal;
}

/** Where a step runs on a terminal program: the terminal instead of a page. */
export interface TerminalStepContext {
  host: StepHost;
  terminal: TerminalDriver;
  timeoutMs: number;
  deadline: number;
  label: string;
  signal: AbortSignal;
}

export interface StepDefinition<S extends JsonSchema = JsonSchema> {
  /** snake_case; identical in YAML, MCP and reports. */
  name: string;
  /**
   * What an agent needs to pick the step, in one or two sentences: the MCP tool description, and the first line of the YAML hover and CLI
   * help.
   */
  description: string;
  /** More for people (YAML hover, `perf <verb> --help`): edge cases, defaults, what the answer holds. Not sent to agents. */
  details?: string;
  /** JSON Schema (type: object) of the step's own arguments; common ones are added by the registry. */
  args: S;
  /** True when the step does not change the page (nor the app behind it). */
  readOnly: boolean;
  /**
   * Writes a file the caller names (screenshot's path, perf_trace's out): the page is left as it is, but the tool
   * changes the working folder, so an MCP client must not take it for read-only (readOnlyHint false).
   */
  writesFiles?: true;
  /** Takes a target (ref / target) and so the `snapshot` option after the action. */
  actsOnTarget?: boolean;
  /** A bare string in YAML (`- tap: "Add item"`) becomes these arguments. */
  shorthand?: (value: string) => Record<string, unknown>;
  /** Default timeout when the step or scenario gives none. */
  defaultTimeoutMs?: number;
  /** What the step needs that not every driver has: a scenario on a driver lacking one is refused when it loads. */
  needs?: readonly PageFeature[];
  /** Only for a desktop app (app.desktop): a scenario driving a web page is refused when it loads. */
  desktopOnly?: boolean;
  /** Steps that need no page (e.g. device_profile list) may run before an app is started. */
  needsPage?: boolean;
  run(ctx: StepContext, args: FromSchema<S> & CommonArgs): Promise<StepOutput>;
  /** The step on a terminal program; a step without one is refused for terminal apps (when the scenario loads). */
  terminal?(ctx: TerminalStepContext, args: FromSchema<S> & CommonArgs): Promise<StepOutput>;
  /** Only for a terminal program (app.terminal): a scenario driving a page is refused when it loads. */
  terminalOnly?: boolean;
  /** false: no MCP tool of its own (an MCP tool covers it: switch_page is the `pages` tool's select). */
  mcp?: false;
  /** Answers from what the session holds, never waiting on the page: its MCP tool lists no timeoutMs (it would bound nothing). */
  instant?: true;
}

/** Arguments every step takes (DESIGN.md: label, timeoutMs, optional). */
export interface CommonArgs {
  label?: string;
  timeoutMs?: number;
  optional?: boolean;
  snapshot?: 'full' | 'diff' | 'none';
}

/** Identity with a precise type: the schema literal types the `run` arguments. */
export function defineStep<const S extends JsonSchema>(def: StepDefinition<S>): StepDefinition<S> {
  return def;
}

// 5 s, like Playwright's expect timeout: long enough for an app to settle, short enough to fail fast.
export const DEFAULT_STEP_TIMEOUT_MS = 5000;

/** Arguments only a scenario file uses (reports, repeats): an MCP tool leaves them out. */
export const SCENARIO_ONLY_ARGS = ['label', 'optional'] as const;

export const COMMON_ARGS = {
  label: { type: 'string', description: 'Name of this step in reports and in the steps.<label>.ms metric. Default: <index>-<step name>.' },
  timeoutMs: { type: 'number', minimum: 0, description: 'Give up after this many ms (default 5000; navigation 30000).' },
  optional: { type: 'boolean', description: 'When true, a failure of this step is recorded but does not fail the repeat.' },
} as const;

export const SNAPSHOT_ARG = {
  type: 'string',
  enum: ['full', 'diff', 'none'],
  description: 'Page after it: full, or diff (changed lines).',
} as const;
