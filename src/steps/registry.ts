/**
 * The one list of steps. The scenario schema, MCP tools and CLI verbs are generated from it.
 * Adding a step = its own file + one line here.
 */
import { closest, PerfError } from '../errors.js';
import { COMMON_ARGS, SNAPSHOT_ARG, TARGET_ARGS, type JsonSchema, type StepDefinition } from './define.js';

export const STEPS: readonly StepDefinition<any>[] = [];

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
