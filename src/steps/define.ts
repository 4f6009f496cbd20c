/**
 * A step is declared once with defineStep({...}); the scenario schema, the MCP tool list and the CLI
 * verbs are all generated from these declarations (src/steps/registry.ts lists them).
 */
import type { Page } from '../drivers/cdp/browser.js';
import type { FromSchema, JsonSchema } from './schema-types.js';
import type { HostState } from '../host-state.js';

export type { FromSchema, JsonSchema };

/** What a side-effect step read back from the page after the action settled (DESIGN.md "effect"). */
export interface Effect {
  text?: { verified: boolean; value: string; expected?: string };
  checked?: { verified: boolean; before: boolean | 'mixed' | null; after: boolean | 'mixed' | null };
  selected?: { verified: boolean; value: string | string[] };
  scrollOffset?: { changed: boolean; before: { x: number; y: number }; after: { x: number; y: number } };
  treeChanged?: { changed: boolean };
}

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
  page(): Promise<Page>;
  /** Base URL of the app, for steps given a path (navigate). Undefined when unknown. */
  appUrl(): string | undefined;
  /** Per-host state shared between steps (perf session, target refs…), in slots typed by the owning module. */
  state: HostState;
  /** Folder that relative output paths resolve against, and that written files must stay inside. */
  cwd: string;
}

export interface StepContext {
  host: StepHost;
  page: Page;
  /** This step's time budget; steps that poll stop at this deadline. */
  timeoutMs: number;
  deadline: number;
  /** The step's label (for reports) and its index in the scenario, if any. */
  label: string;
  signal: AbortSignal;
}

export interface StepDefinition<S extends JsonSchema = JsonSchema> {
  /** snake_case; identical in YAML, MCP and reports. */
  name: string;
  /** The MCP tool description and YAML hover. */
  description: string;
  /** JSON Schema (type: object) of the step's own arguments; common ones are added by the registry. */
  args: S;
  /** True when the step does not change the page (MCP readOnlyHint). */
  readOnly: boolean;
  /** Takes a target (ref / target) and so the `snapshot` option after the action. */
  actsOnTarget?: boolean;
  /** A bare string in YAML (`- tap: "Add item"`) becomes these arguments. */
  shorthand?: (value: string) => Record<string, unknown>;
  /** Default timeout when the step or scenario gives none. */
  defaultTimeoutMs?: number;
  /** Steps that need no page (e.g. device_profile list) may run before an app is started. */
  needsPage?: boolean;
  run(ctx: StepContext, args: FromSchema<S> & CommonArgs): Promise<StepOutput>;
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

export const COMMON_ARGS = {
  label: { type: 'string', description: 'Name of this step in reports and in the steps.<label>.ms metric. Default: <index>-<step name>.' },
  timeoutMs: { type: 'number', minimum: 0, description: 'How long the step may take before it fails, in ms. Default 5000 (navigation 30000).' },
  optional: { type: 'boolean', description: 'When true, a failure of this step is recorded but does not fail the repeat.' },
} as const;

export const SNAPSHOT_ARG = {
  type: 'string',
  enum: ['full', 'diff', 'none'],
  description: 'Embed a snapshot of the page after the action: full, diff (changed lines since the last snapshot) or none. Default none.',
} as const;

const TARGET_FIELDS = {
  text: { type: 'string', description: 'Exact visible text or accessible name (trimmed, whitespace collapsed).' },
  contains: { type: 'string', description: 'Substring of the visible text or accessible name, case-insensitive.' },
  label: { type: 'string', description: 'Label of a form control (<label>, aria-label, aria-labelledby, placeholder).' },
  role: { type: 'string', description: 'ARIA role (explicit or implicit: button, link, textbox, checkbox, list, listitem, dialog…).' },
  name: { type: 'string', description: 'With role: the accessible name, exact (case-insensitive).' },
  testId: { type: 'string', description: 'data-testid attribute value.' },
  css: { type: 'string', description: 'CSS selector (pierces open shadow roots).' },
} as const;

export const TARGET_SCHEMA = {
  type: 'object',
  description: 'Which element: resolved on the live page when the step runs. Strict: several matches are an error listing them, unless nth is given.',
  properties: {
    ...TARGET_FIELDS,
    within: {
      anyOf: [
        { type: 'string', description: 'A ref (e5, q2) of the container to search in.' },
        { type: 'object', properties: TARGET_FIELDS, additionalProperties: false, description: 'A target for the container to search in.' },
      ],
      description: 'Search only inside this container (a ref or a target).',
    },
    nth: { type: 'integer', minimum: 0, description: 'Pick the nth match (0-based) when several elements match.' },
  },
  additionalProperties: false,
} as const;

export const REF_SCHEMA = {
  type: 'string',
  pattern: '^[eq][0-9]+$',
  description: 'Element ref from a snapshot (e<N>) or from find/observe (q<N>).',
} as const;

/** The locator arguments of a step that acts on an element: exactly one of ref / target. */
export const TARGET_ARGS = {
  ref: REF_SCHEMA,
  target: TARGET_SCHEMA,
} as const;

export type TargetSpec = FromSchema<typeof TARGET_SCHEMA>;
