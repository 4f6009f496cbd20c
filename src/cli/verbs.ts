/**
 * `perf <step> --arg value`: every registered step as a CLI verb against the session of `perf start`.
 * Flags are read from the step's JSON Schema (the one declaration), so a verb never needs code of
 * its own; the output is the same JSON the MCP tool answers.
 */
import { writeFileAtomic } from '../files.js';
import path from 'node:path';
import { closest, exitCodeOf, infoAt, isPerfError, PerfError, perfErrorKind } from '../errors.js';
import { jsonText, oneLine, plainText, printable } from '../printable.js';
import { SessionHost, connectedHost } from '../engine/host.js';
import { prepareArgs, runStep, type StepResult } from '../engine/run-step.js';
import { renderReply, stepResultJson, type ToolReply } from '../mcp/format.js';
import { connectSession, runSessionStep } from '../session/manager.js';
import { defaultStateDir } from '../session/state.js';
import type { JsonSchema, StepDefinition, StepHost } from '../steps/define.js';
import { getStep, stepArgsSchema, longDescription } from '../steps/registry.js';
import { camelToKebab } from './args.js';

export function kebabToCamel(s: string): string {
  return s.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

type TypeName = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** Every type a value at this schema may take (type, enum values, const, anyOf/oneOf branches). */
function typesOf(schema: JsonSchema | undefined): Set<TypeName> {
  const out = new Set<TypeName>();
  if (!schema) return out;
  const t = schema.type;
  if (typeof t === 'string') out.add(t);
  else if (Array.isArray(t)) for (const x of t as TypeName[]) out.add(x);
  for (const v of [...((schema.enum as unknown[] | undefined) ?? []), ...('const' in schema ? [schema.const] : [])]) {
    out.add(v === null ? 'null' : Array.isArray(v) ? 'array' : (typeof v as TypeName));
  }
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) for (const x of typesOf(branch)) out.add(x);
  return out;
}

/** The properties of an object schema, including those declared in anyOf/oneOf branches. */
function propertiesOf(schema: JsonSchema | undefined): Map<string, JsonSchema> {
  const out = new Map<string, JsonSchema>();
  if (!schema) return out;
  for (const [k, v] of Object.entries(schema.properties ?? {})) out.set(k, v);
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    for (const [k, v] of propertiesOf(branch)) if (!out.has(k)) out.set(k, v);
  }
  return out;
}

function usageError(step: string, message: string, candidates?: string[]): PerfError {
  return new PerfError({
    code: 'invalid_flag',
    message: `${step}: ${message}`,
    suggestion: `see \`perf ${step} --help\` for its arguments`,
    ...(candidates?.length ? { candidates } : {}),
  });
}

/** A flag value typed by the schema: numbers and booleans coerced, JSON for objects and lists. */
function coerce(step: string, flag: string, raw: string, schema: JsonSchema | undefined): unknown {
  const types = typesOf(schema);
  const trimmed = raw.trim();
  if ((types.has('object') || types.has('array') || types.size === 0) && /^[[{]/.test(trimmed)) {
    try {
      return JSON.parse(trimmed);
    } catch (e) {
      throw usageError(step, `--${flag}: not valid JSON (${(e as Error).message})`);
    }
  }
  if ((types.has('number') || types.has('integer')) && trimmed !== '' && Number.isFinite(Number(trimmed))) {
    // A numeric-looking value stays a string where the schema takes strings too and the text is not purely a number.
    if (!types.has('string') || /^-?\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  }
  if (types.has('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  // Anything else as text: ajv then names the property if the schema wanted another type.
  return raw;
}

function setPath(target: Record<string, unknown>, keys: readonly string[], value: unknown, append: boolean): void {
  let node = target;
  for (const k of keys.slice(0, -1)) {
    const next = node[k];
    if (next === undefined || typeof next !== 'object' || next === null || Array.isArray(next)) node[k] = {};
    node = node[k] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1]!;
  if (!append) node[last] = value;
  else if (Array.isArray(node[last])) (node[last] as unknown[]).push(value);
  else node[last] = [value];
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] =
      b && v && typeof b === 'object' && typeof v === 'object' && !Array.isArray(b) && !Array.isArray(v)
        ? deepMerge(b as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

export interface VerbArgs {
  /** The step's arguments, ready for runStep. */
  args: Record<string, unknown>;
  /** Where to write a screenshot image (`--path`), when the step does not take a path itself. */
  imagePath?: string;
}

/** Steps whose image the verb writes to a file (their schema has no path of its own). */
const IMAGE_STEPS = new Set(['screenshot']);

/**
 * argv → step arguments, guided by the step's schema. Throws PerfError (usage, exit 2) on an unknown
 * flag (with the closest valid names), a missing value, bad JSON or a stray positional.
 */
export function parseVerbArgs(def: StepDefinition<any>, argv: readonly string[]): VerbArgs {
  const schema = stepArgsSchema(def);
  const verbPath = IMAGE_STEPS.has(def.name) && !propertiesOf(schema).has('path');
  const flags: Record<string, unknown> = {};
  const positionals: string[] = [];
  let imagePath: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]!;
    if (tok === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!tok.startsWith('--') || tok === '--') {
      positionals.push(tok);
      continue;
    }
    const body = tok.slice(2);
    const eq = body.indexOf('=');
    const name = eq >= 0 ? body.slice(0, eq) : body;
    const inline = eq >= 0 ? body.slice(eq + 1) : undefined;

    if (verbPath && name === 'path') {
      imagePath = inline ?? argv[++i];
      if (imagePath === undefined) throw usageError(def.name, '--path needs a file name');
      continue;
    }

    // Walk the dotted name down the schema: --target.role → properties.target.properties.role.
    let node: JsonSchema | undefined = schema;
    const keys: string[] = [];
    let negated = false;
    const segments = name.split('.');
    for (const [si, seg] of segments.entries()) {
      const props = propertiesOf(node);
      let key = props.has(seg) ? seg : kebabToCamel(seg);
      if (!props.has(key) && si === segments.length - 1 && seg.startsWith('no-')) {
        const positive = kebabToCamel(seg.slice(3));
        if (props.has(positive) && typesOf(props.get(positive)).has('boolean')) {
          key = positive;
          negated = true;
        }
      }
      if (!props.has(key)) throw unknownFlag(def.name, name, seg, [...props.keys()], keys);
      keys.push(key);
      node = props.get(key);
    }

    const types = typesOf(node);
    // A list given item by item (--keys a --keys b) when the value is not JSON and no string is accepted.
    const itemWise = types.has('array') && !types.has('string');
    const valueSchema = itemWise ? (node?.items as JsonSchema | undefined) : node;
    let value: unknown;
    if (negated) {
      if (inline !== undefined) throw usageError(def.name, `--${name} takes no value`);
      value = false;
    } else if (inline !== undefined) {
      value = coerce(def.name, name, inline, /^\s*[[{]/.test(inline) ? node : valueSchema);
    } else {
      const next = argv[i + 1];
      const nextIsValue = next !== undefined && !(next.startsWith('--') && next.length > 2);
      if (types.has('boolean') && !(nextIsValue && (next === 'true' || next === 'false'))) {
        // A bare boolean flag means true; `--flag false` and `--flag=false` also work.
        value = true;
      } else if (!nextIsValue) {
        throw usageError(def.name, `--${name} needs a value`);
      } else {
        value = coerce(def.name, name, next, /^\s*[[{]/.test(next) ? node : valueSchema);
        i++;
      }
    }
    setPath(flags, keys, value, itemWise && !Array.isArray(value));
  }

  let args = flags;
  if (positionals.length > 1) {
    throw usageError(
      def.name,
      `takes at most one positional argument, got ${positionals.length}: ${positionals.map((p) => JSON.stringify(p)).join(' ')}`,
    );
  }
  if (positionals.length === 1) {
    if (!def.shorthand)
      throw usageError(def.name, `takes no positional argument (got ${JSON.stringify(positionals[0])}); pass flags instead`);
    args = deepMerge(def.shorthand(positionals[0]!), flags);
  }
  // The step resolves its own path against the session's folder; a user typing a relative path at a
  // shell means the folder they are in.
  if (IMAGE_STEPS.has(def.name) && !verbPath && typeof args.path === 'string') args.path = path.resolve(args.path);
  return { args, ...(imagePath !== undefined ? { imagePath } : {}) };
}

/** `unknown flag --x; did you mean --y?`, or the flags valid at that depth when nothing is close. */
function unknownFlag(step: string, name: string, seg: string, siblings: string[], keys: string[]): PerfError {
  const prefix = keys.length ? `${keys.map(camelToKebab).join('.')}.` : '';
  const valid = siblings.map((k) => prefix + camelToKebab(k));
  // Compare the last segment alone: a shared "target." prefix would make every sibling look close.
  const near = closest(camelToKebab(kebabToCamel(seg)), siblings.map(camelToKebab)).map((n) => prefix + n);
  return usageError(
    step,
    `unknown flag --${name}${near.length ? `; did you mean ${near.map((n) => `--${n}`).join(' or ')}?` : ''}` +
      `${valid.length && !near.length ? `; flags here: ${valid.map((n) => `--${n}`).join(', ')}` : ''}`,
    near.map((n) => `--${n}`),
  );
}

function typeLabel(schema: JsonSchema | undefined): string {
  if (!schema) return 'VALUE';
  if (schema.enum) return (schema.enum as unknown[]).map((v) => String(v)).join('|');
  const types = typesOf(schema);
  // A list given item by item: show the item and that the flag repeats.
  if (types.size === 1 && types.has('array') && schema.items) return `${typeLabel(schema.items)}…`;
  const labels: string[] = [];
  if (schema.pattern === '^[eq][0-9]+$' || schema.pattern === '^[eqt][0-9]+$') labels.push('REF');
  else if (types.has('string')) labels.push('TEXT');
  if (types.has('integer')) labels.push('INT');
  else if (types.has('number')) labels.push('N');
  if (types.has('boolean') && types.size > 1) labels.push('true|false');
  if (types.has('object') || types.has('array')) labels.push('JSON');
  return labels.join('|');
}

function helpRows(schema: JsonSchema, prefix: string, required: readonly string[], depth: number): { left: string; right: string }[] {
  const rows: { left: string; right: string }[] = [];
  for (const [key, prop] of propertiesOf(schema)) {
    const flag = `--${prefix}${camelToKebab(key)}`;
    const types = typesOf(prop);
    const onlyBoolean = types.size === 1 && types.has('boolean');
    rows.push({
      left: onlyBoolean ? flag : `${flag} ${typeLabel(prop)}`,
      right: `${prop.description ?? ''}${required.includes(key) ? ' (required)' : ''}`,
    });
    // One level of dotted children (--target.role …): deeper values are easier to give as JSON.
    if (depth === 0 && types.has('object')) {
      const childSchema = prop.properties ? prop : [...(prop.anyOf ?? []), ...(prop.oneOf ?? [])].find((b) => b.properties);
      if (childSchema)
        rows.push(
          ...helpRows(childSchema, `${prefix}${camelToKebab(key)}.`, (childSchema.required as string[] | undefined) ?? [], depth + 1),
        );
    }
  }
  return rows;
}

/** `perf <step> --help`: the description and each argument with its type and description. */
export function verbHelp(step: string): string {
  const def = getStep(step);
  const schema = stepArgsSchema(def);
  const rows = helpRows(schema, '', (schema.required as string[] | undefined) ?? [], 0);
  if (IMAGE_STEPS.has(def.name) && !propertiesOf(schema).has('path')) {
    rows.push({ left: '--path FILE', right: 'Where to write the image. Default ./screenshot-<time>.png (or .jpg).' });
  }
  const width = Math.min(Math.max(...rows.map((r) => r.left.length), 8) + 2, 34);
  const lines = [
    `Usage: perf ${def.name}${def.shorthand ? ' [TEXT]' : ''} [flags]`,
    '',
    longDescription(def),
    '',
    'Arguments:',
    ...rows.map((r) =>
      r.left.length + 2 > width ? `  ${r.left}\n  ${''.padEnd(width)}${r.right}` : `  ${r.left.padEnd(width)}${r.right}`,
    ),
  ];
  if (def.shorthand) {
    lines.push('', `  TEXT  A positional argument is shorthand: perf ${def.name} "TEXT" = ${JSON.stringify(def.shorthand('TEXT'))}.`);
  }
  lines.push(
    '',
    'Nested values: --target.role button --target.name Submit, or JSON: --target \'{"text":"Add item"}\'. Booleans: --flag, --flag=false.',
    'Runs against the session of `perf start` and prints the result as text (a snapshot as its lines);',
    `${JSON_VERB_FLAG} prints the same JSON as the MCP tool instead.`,
    'Exit codes: 0 ok · 1 step failed · 2 bad flags or arguments · 3 no session or environment problem' +
      ' · 4 internal error (a bug in perf; report it)',
  );
  return lines.join('\n');
}

/** The flag every step verb takes besides its step's own arguments. */
const JSON_VERB_FLAG = '--json';

function report(step: string, e: unknown): number {
  const info = infoAt(
    isPerfError(e) ? e.toJSON() : { kind: 'internal', code: 'internal_error', message: (e as Error)?.message ?? String(e) },
    'session',
  );
  process.stderr.write(`perf ${step}: ${printable(info.message.replace(new RegExp(`^${step}: `), ''))}\n`);
  if ('suggestion' in info && info.suggestion) process.stderr.write(`  hint: ${printable(info.suggestion)}\n`);
  return exitCodeFor(info.kind);
}

/** A kind perf does not know is a bug in perf: exit 4 (internal), never 1. */
function exitCodeFor(kind: string): number {
  return exitCodeOf(perfErrorKind(kind));
}

function imageFileName(mimeType: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return `screenshot-${stamp}.${mimeType === 'image/jpeg' ? 'jpg' : 'png'}`;
}

/**
 * A step's reply for a person: one `key: value` line per field, nested values as compact JSON on their line,
 * and a multi-line string (a snapshot, a screen, a log) as its own block under its key, its line breaks kept:
 * in JSON it is one line of `\n` escapes. Page text is sanitised as every printed line is (src/printable.ts).
 */
export function replyText(value: unknown, indent = ''): string {
  if (!isPlainObject(value)) return `${indent}${oneLine(jsonText(value))}\n`;
  let out = '';
  // The one-line fields first: a block (a snapshot) runs to the end, where nothing reads as part of it.
  const entries = Object.entries(value).sort(([, x], [, y]) => Number(holdsBlock(x)) - Number(holdsBlock(y)));
  for (const [key, v] of entries) {
    if (typeof v === 'string' && v.includes('\n')) out += `${indent}${key}:\n${plainText(v).replace(/\n*$/, '\n')}`;
    else if (typeof v === 'string') out += `${indent}${key}: ${oneLine(v)}\n`;
    else if (holdsBlock(v)) out += `${indent}${key}:\n${replyText(v, `${indent}  `)}`;
    else out += `${indent}${key}: ${oneLine(jsonText(v))}\n`;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A multi-line string, or an object with one among its fields (at any depth). */
function holdsBlock(v: unknown): boolean {
  return (typeof v === 'string' && v.includes('\n')) || (isPlainObject(v) && Object.values(v).some(holdsBlock));
}

/**
 * Print a step result: as text for a person, or (`json`) as the MCP tool would answer it; an image goes to a
 * file either way. A failed step prints nothing on stdout as text: its message and hint go to stderr.
 */
function printResult(result: StepResult, imagePath: string | undefined, json: boolean): void {
  let reply: ToolReply;
  if (result.status === 'failed') {
    if (!json) return;
    reply = { kind: 'error', error: { ...result.error }, images: [] };
  } else {
    const json = stepResultJson(result);
    if (result.status === 'ok' && result.image) {
      const stepWrote = typeof result.data?.path === 'string' ? (result.data.path as string) : undefined;
      const file = stepWrote ?? path.resolve(imagePath ?? imageFileName(result.image.mimeType));
      const bytes = Buffer.from(result.image.base64, 'base64');
      if (!stepWrote) writeFileAtomic(file, bytes);
      json.image = { path: file, mimeType: result.image.mimeType, bytes: bytes.length };
    }
    reply = { kind: 'ok', json, images: [] };
  }
  const text = renderReply(reply, { pretty: true, door: 'session' }).text;
  // The same capped reply either way: parsed back, so a person sees what the JSON holds and no more.
  process.stdout.write(json ? text + '\n' : replyText(JSON.parse(text)));
}

/**
 * Run one step verb: parse flags (exit 2 on bad ones, before touching the session), connect to the
 * `perf start` session (exit 3 when none), run the step once, print its result (text, or JSON with --json).
 */
export async function runVerb(step: string, argvIn: string[], opts: { stateDir?: string } = {}): Promise<number> {
  let def: StepDefinition<any>;
  let parsed: VerbArgs;
  // --json is the door's own flag (no step has a `json` argument): the MCP reply for machines instead of text.
  const json = argvIn.includes(JSON_VERB_FLAG);
  const argv = argvIn.filter((a) => a !== JSON_VERB_FLAG);
  try {
    def = getStep(step);
    if (argv.includes('--help') || argv.includes('-h')) {
      process.stdout.write(verbHelp(step) + '\n');
      return 0;
    }
    parsed = parseVerbArgs(def, argv);
    parsed = { ...parsed, args: prepareArgs(step, parsed.args).args };
  } catch (e) {
    return report(step, e);
  }

  // A terminal session runs its steps in its daemon, which owns the pseudo-terminal.
  let remote: unknown;
  try {
    remote = await runSessionStep(opts.stateDir ?? defaultStateDir(), { step, args: parsed.args, cwd: process.cwd(), validated: true });
  } catch (e) {
    return report(step, e);
  }
  if (remote !== undefined) return finish(step, remote as StepResult, parsed.imagePath, json);

  let host: StepHost;
  let close: () => Promise<void> = async () => undefined;
  try {
    const conn = await connectSession(opts.stateDir);
    host = connectedHost(conn);
    close = conn.close;
  } catch (e) {
    if (def.needsPage === false) {
      host = new SessionHost(undefined, undefined, process.cwd());
    } else if (isPerfError(e) && e.code === 'no_session') {
      return report(
        step,
        new PerfError({
          code: 'no_session',
          kind: 'environment',
          message: 'no session: nothing to act on',
          suggestion: 'start one with `perf start --serve DIR` (or --url URL), then run this again',
          cause: e,
        }),
      );
    } else {
      return report(step, e);
    }
  }
  let result: StepResult;
  try {
    result = await runStep(host, step, parsed.args, { validated: true });
  } finally {
    await close().catch(() => undefined);
  }
  return finish(step, result, parsed.imagePath, json);
}

/** Print the result and map it to the exit code. */
function finish(step: string, result: StepResult, imagePath: string | undefined, json: boolean): number {
  try {
    printResult(result, imagePath, json);
  } catch (e) {
    return report(
      step,
      new PerfError({ code: 'write_failed', kind: 'environment', message: `could not write the image: ${(e as Error).message}`, cause: e }),
    );
  }
  switch (result.status) {
    case 'ok':
    case 'skipped':
      return 0;
    case 'failed': {
      const { message, suggestion } = infoAt(result.error, 'session');
      // A step's message quotes the page (a label, an element's text): control characters shown, not obeyed.
      process.stderr.write(printable(`perf ${step}: ${message}\n${suggestion ? `  hint: ${suggestion}\n` : ''}`));
      return exitCodeFor(result.error.kind);
    }
  }
}
