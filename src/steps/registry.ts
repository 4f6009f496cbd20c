/**
 * The one list of steps. The scenario schema, MCP tools and CLI verbs are generated from it.
 * Adding a step = its own file + one line here.
 */
import { closest, PerfError } from '../errors.js';
import { SCENARIO_ONLY_FIELDS } from '../page/target-schema.js';
import {
  COMMON_ARGS,
  DEFAULT_STEP_TIMEOUT_MS,
  SCENARIO_ONLY_ARGS,
  SNAPSHOT_ARG,
  TARGET_ARGS,
  TARGET_BRIEF,
  TARGET_SCHEMA,
  type JsonSchema,
  type StepDefinition,
} from './define.js';
import { blur } from './blur.js';
import { clear } from './clear.js';
import { dblclick } from './dblclick.js';
import { drag } from './drag.js';
import { expect } from './expect.js';
import { fill } from './fill.js';
import { find } from './find.js';
import { focus } from './focus.js';
import { hover } from './hover.js';
import { observe } from './observe.js';
import { pressKey } from './press-key.js';
import { rightClick } from './right-click.js';
import { scroll } from './scroll.js';
import { selectOption } from './select-option.js';
import { setCheckbox } from './set-checkbox.js';
import { snap } from './snap.js';
import { tap } from './tap.js';
import { tripleClick } from './triple-click.js';
import { typeStep } from './type.js';
import { consoleStep } from './console.js';
import { deviceProfile } from './device-profile.js';
import { network } from './network.js';
import { dismissModals } from './dismiss-modals.js';
import { evaluate } from './evaluate.js';
import { exceptions } from './exceptions.js';
import { getRoutes } from './get-routes.js';
import { navigateBack } from './navigate-back.js';
import { navigate } from './navigate.js';
import { reload } from './reload.js';
import { resetOverlays } from './reset-overlays.js';
import { resizeViewport } from './resize-viewport.js';
import { screenshot } from './screenshot.js';
import { waitForNetworkIdle } from './wait-for-network-idle.js';
import { waitFor } from './wait-for.js';
import { perfBegin } from './perf-begin.js';
import { perfEnd } from './perf-end.js';
import { perfInsight } from './perf-insight.js';
import { perfLoad } from './perf-load.js';
import { perfTrace } from './perf-trace.js';
import { mark } from './mark.js';
import { tauriInvoke } from './tauri-invoke.js';
import { signalStep } from './signal.js';
import { switchPage } from './switch-page.js';
import { PAGE_ARG } from '../page/page-schema.js';

// Grouped by family in the order of the DESIGN.md steps table.
export const STEPS: readonly StepDefinition<any>[] = [
  // read
  snap,
  find,
  observe,
  getRoutes,
  screenshot,
  consoleStep,
  exceptions,
  evaluate,
  // pointer
  tap,
  dblclick,
  rightClick,
  tripleClick,
  hover,
  drag,
  // keyboard
  typeStep,
  fill,
  clear,
  focus,
  blur,
  pressKey,
  // forms
  selectOption,
  setCheckbox,
  // scroll / wait
  scroll,
  waitFor,
  waitForNetworkIdle,
  // navigation
  navigate,
  navigateBack,
  reload,
  switchPage,
  // overlays / viewport
  dismissModals,
  resetOverlays,
  resizeViewport,
  deviceProfile,
  network,
  // assert
  expect,
  // perf
  perfBegin,
  perfEnd,
  perfLoad,
  perfInsight,
  perfTrace,
  mark,
  // desktop, terminal
  tauriInvoke,
  signalStep,
];

const byName = new Map<string, StepDefinition<any>>();
function index(): Map<string, StepDefinition<any>> {
  if (byName.size !== STEPS.length) {
    byName.clear();
    for (const s of STEPS) byName.set(s.name, s);
  }
  return byName;
}

export function stepNames(): string[] {
  return STEPS.map((s) => s.name);
}

export function getStep(name: string): StepDefinition<any> {
  const def = index().get(name);
  if (!def) {
    const near = closest(name, stepNames());
    throw new PerfError({
      code: 'unknown_step',
      message: `unknown step "${name}"${near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : ''}`,
      suggestion: `steps are: ${stepNames().join(', ')}`,
      candidates: near,
    });
  }
  return def;
}

const fullSchemas = new Map<string, JsonSchema>();
/**
 * The complete argument schema of a step: its own arguments plus the common ones (label, timeoutMs,
 * optional; snapshot for target actions), closed to extra properties so typos are refused.
 */
export function stepArgsSchema(def: StepDefinition<any>): JsonSchema {
  let s = fullSchemas.get(def.name);
  if (!s) {
    const own = def.args as JsonSchema;
    s = {
      type: 'object',
      description: longDescription(def),
      properties: {
        ...(own.properties ?? {}),
        ...COMMON_ARGS,
        // The step's own default, so the schema states it exactly.
        timeoutMs: { ...COMMON_ARGS.timeoutMs, description: `Default ${def.defaultTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS}.` },
        ...(def.actsOnTarget ? { snapshot: SNAPSHOT_ARG } : {}),
        // Any step on a page may first select the page it acts on (switch_page has its own `page`).
        ...(def.terminalOnly || own.properties?.page ? {} : { page: PAGE_ARG }),
      },
      ...(own.required ? { required: own.required } : {}),
      ...(own.anyOf ? { anyOf: own.anyOf } : {}),
      ...(own.oneOf ? { oneOf: own.oneOf } : {}),
      ...(own.dependencies ? { dependencies: own.dependencies } : {}),
      additionalProperties: false,
    };
    fullSchemas.set(def.name, s);
  }
  return s;
}

/** The description people see (YAML hover, CLI help): the agent's one or two sentences, then the details. */
export function longDescription(def: StepDefinition<any>): string {
  return def.details ? `${def.description} ${def.details}` : def.description;
}

const mcpSchemas = new Map<string, JsonSchema>();

/**
 * The step's arguments as an MCP tool lists them, derived from the full schema with the same
 * constraints (the MCP door validates against it): no top-level description (the tool has one), no
 * scenario-only arguments (label, optional), one description per argument (none inside it), and
 * the target in its compact form (one line of meaning; its fields, and within's, undescribed).
 */
export function mcpArgsSchema(def: StepDefinition<any>): JsonSchema {
  let s = mcpSchemas.get(def.name);
  if (!s) {
    const { description: _tool, properties = {}, ...rest } = stepArgsSchema(def);
    const props: Record<string, JsonSchema> = {};
    const targetFields = TARGET_SCHEMA.properties as Record<string, JsonSchema>;
    const own = (def.args as JsonSchema).properties ?? {};
    for (const [k, full] of Object.entries(properties)) {
      // A scenario-only argument is the step's own where the step declares one of that name (find's label, a target
      // field): in a scenario the common argument shadows it, but MCP has no step labels to shadow it with.
      const v = (SCENARIO_ONLY_ARGS as readonly string[]).includes(k) ? own[k] : full;
      if (v === undefined || SCENARIO_ONLY_FIELDS.has(v)) continue;
      if (k === 'timeoutMs' && def.instant) continue;
      if (v === TARGET_SCHEMA) props[k] = COMPACT_TARGET;
      // A target's own fields spread into a step (find): the step's description names them.
      else if (v === targetFields[k]) props[k] = undescribed(v);
      else props[k] = v.description === undefined ? undescribed(v) : { ...undescribed(v), description: v.description };
    }
    s = {
      ...withoutScenarioOnlyBranches(
        rest,
        Object.keys(properties).filter((k) => !(k in props)),
      ),
      properties: props,
    };
    mcpSchemas.set(def.name, s);
  }
  return s;
}

/**
 * A step's anyOf / oneOf without the branches that require an argument MCP leaves out (network's
 * latencyMs…): an agent could not take them. A single branch left is plain `required`. The same
 * for the dependencies of such an argument.
 */
function withoutScenarioOnlyBranches(s: JsonSchema, dropped: string[]): JsonSchema {
  let out: JsonSchema = s;
  if (out.dependencies && typeof out.dependencies === 'object') {
    const { dependencies, ...rest } = out;
    const kept = Object.entries(dependencies).filter(([k]) => !dropped.includes(k));
    out = kept.length ? { ...rest, dependencies: Object.fromEntries(kept) } : rest;
  }
  for (const k of ['anyOf', 'oneOf'] as const) {
    const branches = out[k] as JsonSchema[] | undefined;
    if (!branches || dropped.length === 0) continue;
    const kept = branches.filter((b) => !((b.required as string[] | undefined) ?? []).some((r) => dropped.includes(r)));
    if (kept.length === branches.length) continue;
    const { [k]: _all, ...rest } = out;
    const only =
      kept.length === 1 && Object.keys(kept[0]!).every((key) => key === 'required') ? (kept[0]!.required as string[]) : undefined;
    out = only
      ? { ...rest, required: [...new Set([...((rest.required as string[] | undefined) ?? []), ...only])] }
      : kept.length
        ? { ...rest, [k]: kept }
        : rest;
  }
  return out;
}

/**
 * A schema with every description below the top level removed, the constraints kept. An object
 * with several plain string fields (a target, within's target form) lists their names once and
 * their one type once: the same constraints in fewer bytes.
 */
function undescribed(s: JsonSchema): JsonSchema {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'description') continue;
    // A terminal cell (row, col) is for scenario files: an agent acts on a terminal by its refs.
    if (k === 'properties' && v && typeof v === 'object')
      out[k] = Object.fromEntries(
        Object.entries(v)
          .filter(([, ps]) => !SCENARIO_ONLY_FIELDS.has(ps as object))
          .map(([p, ps]) => [p, undescribed(ps as JsonSchema)]),
      );
    else if ((k === 'anyOf' || k === 'oneOf') && Array.isArray(v)) out[k] = v.map((x) => undescribed(x as JsonSchema));
    else if (k === 'items' && v && typeof v === 'object') out[k] = undescribed(v as JsonSchema);
    else out[k] = v;
  }
  const merged = mergedTypes(out);
  if (merged) return merged;
  const props = out.properties as Record<string, JsonSchema> | undefined;
  const plain = (p: JsonSchema): boolean => Object.keys(p).length === 1 && p.type === 'string';
  if (props && out.additionalProperties === false && Object.values(props).filter(plain).length >= COMPACT_MIN_STRING_FIELDS) {
    const { properties: _p, additionalProperties: _a, ...rest } = out;
    const other = Object.fromEntries(Object.entries(props).filter(([, p]) => !plain(p)));
    return {
      ...rest,
      propertyNames: { enum: Object.keys(props) },
      ...(Object.keys(other).length ? { properties: other } : {}),
      additionalProperties: { type: 'string' },
    };
  }
  return out;
}
/**
 * anyOf [{type: A}, {type: B, …B's keywords}] as {type: [A, B], …B's keywords}: the same constraints in fewer bytes,
 * since a keyword of one type (an object's propertyNames, a string's pattern) does not apply to a value of another
 * (JSON Schema's type-specific keywords). Only when the types differ and one branch at most has more than its type.
 */
function mergedTypes(s: JsonSchema): JsonSchema | undefined {
  const branches = s.anyOf as JsonSchema[] | undefined;
  if (!branches || Object.keys(s).length !== 1) return undefined;
  type One = Exclude<JsonSchema['type'], readonly unknown[] | undefined>;
  const types = branches.map((b) => b.type).filter((t): t is One => typeof t === 'string');
  if (types.length !== branches.length || new Set(types).size !== types.length) return undefined;
  const rich = branches.filter((b) => Object.keys(b).length > 1);
  if (rich.length > 1) return undefined;
  return { ...(rich[0] ?? {}), type: types };
}

// Below three string fields, listing each ({"type":"string"}) is as short as the rewrite.
const COMPACT_MIN_STRING_FIELDS = 3;

const COMPACT_TARGET: JsonSchema = { ...undescribed(TARGET_SCHEMA), description: TARGET_BRIEF };

/** The target arguments, for step files that act on an element. */
export { TARGET_ARGS };
