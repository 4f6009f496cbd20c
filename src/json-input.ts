/**
 * JSON files someone else may have written (run files, compare results, gate shards): read only when
 * a regular file under its size cap, refused before parsing when nested too deep, and checked against
 * its JSON Schema before any code reads a field. Every problem is a usage error (exit 2) naming the
 * file and the JSON path.
 *
 * No message ever quotes the file's content: a path handed to perf by mistake or by an agent (a
 * secrets file, /etc/passwd) must not come back in a terminal, a CI log or an MCP reply. A syntax
 * error says "not JSON (at byte N)", a wrong value says what it is ("got a string"), never what it says.
 *
 * Shared by src/perf (run files, compares) and src/cli (shards), hence here beside errors.ts; its ajv
 * is its own (one error, no quoted values), not the scenario loader's of src/engine/validate.ts.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { PerfError, type ErrorCode } from './errors.js';
import { precompiledValidator } from './precompiled.js';

// 64 levels: a run file nests about 8 deep and a shard file (a run inside an entry) about 12. V8's
// JSON.parse is superlinear in nesting (16 MiB of "[" took 2.4 s here), so depth is checked first,
// in one linear pass over the text; the parsed value is walked again before ajv for values that did
// not come from a file.
export const MAX_JSON_DEPTH = 64;

/** What a file is: the words and error codes of its messages, and its size cap. */
export interface JsonFileKind {
  /** As in "<file>: not a <what>: …", e.g. "rehearse run file". */
  what: string;
  /** As in "cannot read the <noun>", e.g. "run file". */
  noun: string;
  /** Put before every message, e.g. "merge: ". */
  prefix?: string;
  invalidCode: ErrorCode;
  unreadableCode: ErrorCode;
  tooLargeCode: ErrorCode;
  maxBytes: number;
  suggestion: string;
}

export function invalidJson(kind: JsonFileKind, file: string, problem: string): PerfError {
  const message = `${kind.prefix ?? ''}${file}: not a ${kind.what}: ${problem}`;
  return new PerfError({ kind: 'usage', code: kind.invalidCode, message, suggestion: kind.suggestion });
}

function tooLarge(kind: JsonFileKind, file: string, sizeBytes: number | undefined): PerfError {
  const cap = `${kind.maxBytes / 2 ** 20} MiB`;
  const size = sizeBytes === undefined ? `more than ${cap}` : `${(sizeBytes / 2 ** 20).toFixed(1)} MiB`;
  const message = `${kind.prefix ?? ''}${file}: ${size}; a ${kind.noun} may be at most ${cap}`;
  return new PerfError({ kind: 'usage', code: kind.tooLargeCode, message, suggestion: kind.suggestion });
}

// 1 MiB: few reads for a large file, and a small overshoot past the cap of a file whose size stat
// cannot tell (/proc).
const READ_CHUNK_BYTES = 2 ** 20;

/**
 * The file's text, read through one descriptor: O_NONBLOCK so a FIFO cannot hold the open, fstat of what
 * was opened, and never more than the cap read, even where stat says 0 (/proc files).
 */
function readCapped(file: string, kind: JsonFileKind): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
    throw new PerfError({
      kind: 'usage',
      code: kind.unreadableCode,
      message: `${kind.prefix ?? ''}${file}: cannot read the ${kind.noun}: ${why}`,
      suggestion: kind.suggestion,
      cause: e,
    });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw invalidJson(kind, file, 'it is not a regular file');
    if (st.size > kind.maxBytes) throw tooLarge(kind, file, st.size);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, kind.maxBytes + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > kind.maxBytes) throw tooLarge(kind, file, undefined);
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Read and parse a JSON file of `kind`; not yet validated (see checkJson). */
export function readJsonFile(file: string, kind: JsonFileKind): unknown {
  const text = readCapped(file, kind);
  const deep = tooDeepAt(text, MAX_JSON_DEPTH);
  if (deep >= 0) throw invalidJson(kind, file, `nested more than ${MAX_JSON_DEPTH} levels deep at byte ${byteOffset(text, deep)}`);
  try {
    return JSON.parse(text);
  } catch {
    // V8's message quotes the text ("Unexpected token 'r', "root:x:0:0"... is not valid JSON"): never shown.
    const at = jsonSyntaxErrorAt(text);
    throw invalidJson(kind, file, at >= 0 ? `not JSON (at byte ${byteOffset(text, at)})` : 'not JSON');
  }
}

function byteOffset(text: string, index: number): number {
  return Buffer.byteLength(text.slice(0, index), 'utf8');
}

/** Where `text` first nests deeper than `max` (strings skipped), or -1. */
export function tooDeepAt(text: string, max: number): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return i;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return -1;
}

// ─── where a text stops being JSON ──────────────────────────────────────────────────────────────────

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/** RFC 8259 tokens, by hand: a regular expression over a 30 MB string overflows V8's stack. */
class JsonScanner {
  i = 0;
  constructor(private readonly text: string) {}

  at(): number {
    return this.text.charCodeAt(this.i);
  }

  skipSpace(): void {
    for (let c = this.at(); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = this.at()) this.i++;
  }

  /** At a `"`: past the closing quote, or false with `i` at the offending character. */
  string(): boolean {
    const t = this.text;
    for (this.i++; this.i < t.length; this.i++) {
      const c = t.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c !== 0x5c) continue;
      const d = t[this.i + 1];
      if (d === 'u') {
        for (let k = 2; k < 6; k++) {
          if (!isHex(t.charCodeAt(this.i + k))) {
            this.i += k;
            return false;
          }
        }
        this.i += 5;
      } else {
        this.i++;
        if (d === undefined || !'"\\/bfnrt'.includes(d)) return false;
      }
    }
    return false;
  }

  digits(): boolean {
    if (!isDigit(this.at())) return false;
    while (isDigit(this.at())) this.i++;
    return true;
  }

  number(): boolean {
    if (this.at() === 0x2d /* - */) this.i++;
    if (this.at() === 0x30 /* 0 */) this.i++;
    else if (!this.digits()) return false;
    if (this.at() === 0x2e /* . */) {
      this.i++;
      if (!this.digits()) return false;
    }
    if (this.at() === 0x65 || this.at() === 0x45 /* e E */) {
      this.i++;
      if (this.at() === 0x2b || this.at() === 0x2d) this.i++;
      if (!this.digits()) return false;
    }
    return true;
  }

  scalar(): boolean {
    const c = this.at();
    if (c === 0x22) return this.string();
    for (const word of ['true', 'false', 'null']) {
      if (c !== word.charCodeAt(0)) continue;
      for (let k = 0; k < word.length; k++, this.i++) if (this.at() !== word.charCodeAt(k)) return false;
      return true;
    }
    return this.number();
  }
}

/**
 * The index of the first character at which `text` stops being JSON (RFC 8259), or -1 when it is JSON:
 * V8 names no position for most errors, and its message cannot be shown (it quotes the text). Linear,
 * with an explicit stack; called only after JSON.parse failed.
 */
export function jsonSyntaxErrorAt(text: string): number {
  const s = new JsonScanner(text);
  const closers: number[] = [];
  let want: 'value' | 'key' = 'value';
  for (;;) {
    s.skipSpace();
    if (want === 'key') {
      if (s.at() !== 0x22 || !s.string()) return s.i;
      s.skipSpace();
      if (s.at() !== 0x3a /* : */) return s.i;
      s.i++;
      want = 'value';
      continue;
    }
    const c = s.at();
    if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      s.i++;
      s.skipSpace();
      const close = c === 0x5b ? 0x5d : 0x7d;
      if (s.at() !== close) {
        closers.push(close);
        want = c === 0x7b ? 'key' : 'value';
        continue;
      }
      s.i++;
    } else if (!s.scalar()) {
      return s.i;
    }
    // After a value: close what ends here, then a comma (another value or key) or the end of the text.
    for (;;) {
      s.skipSpace();
      const top = closers[closers.length - 1];
      if (top === undefined) return s.i < text.length ? s.i : -1;
      if (s.at() === top) {
        closers.pop();
        s.i++;
        continue;
      }
      if (s.at() !== 0x2c /* , */) return s.i;
      s.i++;
      want = top === 0x7d ? 'key' : 'value';
      break;
    }
  }
}

// ─── validation ─────────────────────────────────────────────────────────────────────────────────────

// allErrors off: a hostile file with a million bad values costs one error object, not a million.
// discriminator: repeats and gate outcomes are unions keyed by `status`, and the error names the
// branch the file chose instead of every branch it did not. verbose: errors carry the value (to say
// what type it is) and the schema (to list a tag's allowed values).
export const FILE_AJV_OPTIONS = { allErrors: false, strict: false, allowUnionTypes: true, verbose: true, discriminator: true } as const;
const fileAjv = new Ajv(FILE_AJV_OPTIONS);
const compiled = new WeakMap<object, ValidateFunction>();

/** True when `value` nests deeper than `max`; iterative, so no input can overflow the stack. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [v, depth] = top;
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** `data` as T once it matches `schema`; else a usage error naming the file and the JSON path. */
export function checkJson<T>(schema: Schema, data: unknown, file: string, kind: JsonFileKind): T {
  if (nestsDeeperThan(data, MAX_JSON_DEPTH)) throw invalidJson(kind, file, `nested more than ${MAX_JSON_DEPTH} levels deep`);
  let validate = compiled.get(schema);
  if (!validate) {
    validate = precompiledValidator('files', schema) ?? fileAjv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(data)) return data as T;
  throw invalidJson(kind, file, describeFileError(validate.errors?.[0]));
}

/** A JSON path as a reader writes it: repeats[0].report.metrics["steps.0-tap.ms"]; long keys cut. */
export function jsonPath(instancePath: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return parts
    .map((p, i) => {
      if (/^(0|[1-9][0-9]*)$/.test(p)) return `[${p}]`;
      if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(p) && p.length <= KEY_SHOWN_CHARS) return i === 0 ? p : `.${p}`;
      return `[${JSON.stringify(p.length > KEY_SHOWN_CHARS ? `${p.slice(0, KEY_SHOWN_CHARS)}…` : p)}]`;
    })
    .join('');
}

// 60 characters: a metric name reads whole; a longer key is cut so the message stays one line.
const KEY_SHOWN_CHARS = 60;

/** What a value is, never what it says. */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'number') return Number.isInteger(v) ? `the number ${v}` : `a fraction`;
  return { string: 'a string', boolean: 'a boolean', object: 'an object' }[typeof v as 'string' | 'boolean' | 'object'] ?? typeof v;
}

const TYPE_WORD: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  null: 'null',
  array: 'a list',
  object: 'an object',
};

const LIMIT_WORD: Record<string, string> = {
  minimum: 'at least',
  maximum: 'at most',
  exclusiveMinimum: 'more than',
  exclusiveMaximum: 'less than',
};

function limitPhrase(e: ErrorObject): string {
  const limit = e.params.limit as number;
  if (Math.abs(limit) === Number.MAX_VALUE) return 'must be a finite number';
  const got = typeof e.data === 'number' && Number.isFinite(e.data) ? e.data : 'a number past any limit';
  return `must be ${LIMIT_WORD[e.keyword]} ${limit}, got ${got}`;
}

const quote = (v: unknown): string => JSON.stringify(v);

/** The tag values a discriminated union allows (from our schema, not the file). */
function tagsOf(e: ErrorObject): string[] {
  const branches = (e.parentSchema as { oneOf?: { properties?: Record<string, { const?: unknown }> }[] }).oneOf ?? [];
  return branches.map((b) => quote(b.properties?.[String(e.params.tag)]?.const));
}

/** One ajv error as "<path> <what was expected>", quoting nothing of the file but numbers and the path. */
export function describeFileError(e: ErrorObject | undefined): string {
  if (!e) return 'does not match its schema';
  const path = jsonPath(e.instancePath);
  const at = path || 'the top level';
  switch (e.keyword) {
    case 'type': {
      const types = String(e.params.type)
        .split(',')
        .map((t) => TYPE_WORD[t] ?? t);
      return `${at} must be ${types.join(' or ')}, got ${kindOf(e.data)}`;
    }
    case 'required':
      return `${path ? `${path}.` : ''}${String(e.params.missingProperty)} is missing`;
    case 'enum':
      return `${at} must be one of ${(e.params.allowedValues as unknown[]).map(quote).join(', ')}, got ${kindOf(e.data)}`;
    case 'const':
      return `${at} must be ${JSON.stringify(e.params.allowedValue)}, got ${kindOf(e.data)}`;
    case 'discriminator':
      return `${path ? `${path}.` : ''}${String(e.params.tag)} must be one of ${tagsOf(e).join(', ')}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${at} ${limitPhrase(e)}`;
    case 'maxLength':
      // Inside propertyNames, ajv names the object and the key apart: say it is a key, without quoting it.
      if (e.propertyName !== undefined) return `${at} has a key longer than ${String(e.params.limit)} characters`;
      return `${at} is longer than ${String(e.params.limit)} characters`;
    case 'minLength':
      return `${at} is empty`;
    case 'maxItems':
      return `${at} has more than ${String(e.params.limit)} items`;
    case 'maxProperties':
      return `${at} has more than ${String(e.params.limit)} entries`;
    case 'propertyNames':
      return `${at} has a key longer than allowed`;
    default:
      return `${at} is invalid (${e.keyword})`;
  }
}

// ─── schema pieces ──────────────────────────────────────────────────────────────────────────────────

/** A JSON Schema literal built by the helpers below. */
export type Schema = { readonly type?: string | readonly string[]; readonly [k: string]: unknown };

/** A finite number: JSON has no Infinity, but 1e400 parses to it. */
export function finite(description: string, bounds: { minimum?: number; maximum?: number } = {}): Schema {
  return { type: 'number', minimum: bounds.minimum ?? -Number.MAX_VALUE, maximum: bounds.maximum ?? Number.MAX_VALUE, description };
}

export function whole(description: string, minimum: number, maximum: number): Schema {
  return { type: 'integer', minimum, maximum, description };
}

export function text(description: string, maxLength: number): Schema {
  return { type: 'string', maxLength, description };
}

export function list(description: string, items: Schema, maxItems: number): Schema {
  return { type: 'array', items, maxItems, description };
}

/** An object of named fields; extra fields are allowed (files are extended, never renamed). */
export function record(description: string, properties: Record<string, Schema>, required: readonly string[] = []): Schema {
  return { type: 'object', properties, required, description };
}

/** An object used as a map: bounded in entries and in key length. */
export function map(description: string, values: Schema, maxProperties: number, keyMaxLength: number): Schema {
  return { type: 'object', additionalProperties: values, maxProperties, propertyNames: { maxLength: keyMaxLength }, description };
}

/** A union keyed by `tag`: each branch names its tag value with `const`. */
export function tagged(description: string, tag: string, branches: readonly Schema[]): Schema {
  return { type: 'object', description, discriminator: { propertyName: tag }, required: [tag], oneOf: branches };
}

/** `schema` or null: its type widened, its other keywords (which apply to their own type only) kept. */
export function nullable(schema: Schema, description: string): Schema {
  const type = typeof schema.type === 'string' ? [schema.type, 'null'] : [...(schema.type ?? []), 'null'];
  return { ...schema, type, description };
}
