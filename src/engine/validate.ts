/**
 * ajv, set up once, and the translation of its errors into one readable sentence that names the
 * property and what was expected. The same text is shown in YAML, MCP and CLI.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { closest } from '../errors.js';
import { NAME_PART } from '../files.js';
import { precompiledValidator } from '../precompiled.js';

// verbose: errors carry parentSchema, which describeAjvError reads to list the allowed properties.
export const ARGS_AJV_OPTIONS = { allErrors: true, strict: false, allowUnionTypes: true, verbose: true } as const;
export const ajv = new Ajv(ARGS_AJV_OPTIONS);

const cache = new WeakMap<object, ValidateFunction>();
export function compile(schema: object): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    fn = precompiledValidator('args', schema) ?? ajv.compile(schema);
    cache.set(schema, fn);
  }
  return fn;
}

function pathOf(e: ErrorObject): string {
  // /target/text → target.text ; /0/tap → [0].tap
  return e.instancePath
    .split('/')
    .filter(Boolean)
    .map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`))
    .join('')
    .replace(/^\./, '');
}

/** One error as "where: problem". `schemaAt` finds the sub-schema, for listing allowed properties. */
export function describeAjvError(e: ErrorObject, root: string): { path: string; message: string } {
  const at = pathOf(e);
  const where = [root, at].filter(Boolean).join(at.startsWith('[') ? '' : '.');
  switch (e.keyword) {
    case 'additionalProperties': {
      const extra = String(e.params.additionalProperty);
      const allowed = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      const near = closest(extra, allowed);
      return {
        path: [at, extra].filter(Boolean).join('.'),
        message:
          `${where}: unknown argument "${extra}"` +
          `${near.length ? ` (did you mean ${near.map((n) => `"${n}"`).join(' or ')}?)` : ''}` +
          (allowed.length ? `; expected one of: ${allowed.join(', ')}` : '; it takes no arguments'),
      };
    }
    case 'required':
      return { path: at, message: `${where}: missing required argument "${String(e.params.missingProperty)}"` };
    case 'type':
      return { path: at, message: `${where}: must be ${String(e.params.type)}, got ${describeValue(e.data)}` };
    case 'enum':
      return {
        path: at,
        message:
          `${where}: must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` +
          `, got ${describeValue(e.data)}`,
      };
    case 'pattern':
      if (e.params.pattern === NAME_PART.pattern) {
        const message = `${where}: ${describeValue(e.data)} may only use ${NAME_PART.allowed} (it becomes part of file names)`;
        return { path: at, message };
      }
      return { path: at, message: `${where}: ${describeValue(e.data)} does not match ${String(e.params.pattern)}` };
    default:
      return { path: at, message: `${where}: ${e.message ?? 'is invalid'}` };
  }
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${JSON.stringify(v)}`;
}

/**
 * The most useful error first: ajv reports every anyOf branch; a wrong property name or a wrong type
 * deep in the value says more than "must match a schema in anyOf".
 */
export function bestErrors(errors: ErrorObject[]): ErrorObject[] {
  const rank = (e: ErrorObject): number =>
    e.keyword === 'additionalProperties'
      ? 0
      : e.keyword === 'required'
        ? 1
        : e.keyword === 'enum' || e.keyword === 'type' || e.keyword === 'pattern'
          ? 2
          : e.keyword === 'anyOf' || e.keyword === 'oneOf'
            ? 4
            : 3;
  const deepest = Math.max(...errors.map((e) => e.instancePath.length));
  return [...errors].sort(
    (a, b) => rank(a) - rank(b) || b.instancePath.length - a.instancePath.length || (a.instancePath.length === deepest ? -1 : 1),
  );
}
