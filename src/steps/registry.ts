/**
 * The one list of steps. The scenario schema, MCP tools and CLI verbs are generated from it.
 * Adding a step = its own file + one line here.
 */
import { closest, PerfError } from '../errors.js';
import { COMMON_ARGS, SNAPSHOT_ARG, TARGET_ARGS, type JsonSchema, type StepDefinition } from './define.js';
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
import { perfTrace } from './perf-trace.js';
import { mark } from './mark.js';

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
  // overlays / viewport
  dismissModals,
  resetOverlays,
  resizeViewport,
  deviceProfile,
  // assert
  expect,
  // perf
  perfBegin,
  perfEnd,
  perfInsight,
  perfTrace,
  mark,
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
      description: def.description,
      properties: {
        ...(own.properties ?? {}),
        ...COMMON_ARGS,
        ...(def.actsOnTarget ? { snapshot: SNAPSHOT_ARG } : {}),
      },
      ...(own.required ? { required: own.required } : {}),
      ...(own.anyOf ? { anyOf: own.anyOf } : {}),
      ...(own.oneOf ? { oneOf: own.oneOf } : {}),
      additionalProperties: false,
    };
    fullSchemas.set(def.name, s);
  }
  return s;
}

/** The target arguments, for step files that act on an element. */
export { TARGET_ARGS };
