/**
 * The one error type thrown by the core. Edges translate it: the CLI into an exit code and one
 * stderr line, MCP into an `isError` result. `kind` says which exit code applies.
 */

/** What kind of failure, which decides the exit code at the CLI edge (DESIGN.md "Exit codes"). */
export type PerfErrorKind =
  /** The thing judged failed: regression, budget, assertion, every repeat failed. Exit 1. */
  | 'failed'
  /** Invalid usage or input: bad flags, bad scenario, unreadable run file. Exit 2. */
  | 'usage'
  /** Environment problem: no browser, app did not start, port taken. Exit 3. */
  | 'environment'
  /** A bug in perf: an error no code path meant to throw. Exit 4, so CI never reads it as "regressed". */
  | 'internal';

export interface PerfErrorInit {
  /** Stable machine-readable code, snake_case, e.g. `chrome_not_found`. */
  code: string;
  message: string;
  kind?: PerfErrorKind;
  /** What the user can do next, one sentence. */
  suggestion?: string;
  /** Close valid names, or the elements a target matched. */
  candidates?: string[];
  cause?: unknown;
  /**
   * What was measured but could not be saved (a run whose file could not be written): the edge
   * prints it as JSON on stderr so that nothing measured is lost.
   */
  salvage?: unknown;
}

/** A PerfError as data (its toJSON): what run files, MCP replies and step results carry. */
export interface ErrorInfo {
  kind: string;
  code: string;
  message: string;
  suggestion?: string;
  candidates?: string[];
}

export class PerfError extends Error {
  readonly code: string;
  readonly kind: PerfErrorKind;
  readonly suggestion: string | undefined;
  readonly candidates: string[] | undefined;
  readonly salvage: unknown;

  constructor(init: PerfErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'PerfError';
    this.code = init.code;
    this.kind = init.kind ?? 'usage';
    this.suggestion = init.suggestion;
    this.candidates = init.candidates;
    this.salvage = init.salvage;
  }

  toJSON(): ErrorInfo {
    return {
      kind: this.kind,
      code: this.code,
      message: this.message,
      ...(this.suggestion ? { suggestion: this.suggestion } : {}),
      ...(this.candidates?.length ? { candidates: this.candidates } : {}),
    };
  }
}

export function exitCodeOf(kind: PerfErrorKind): 1 | 2 | 3 | 4 {
  switch (kind) {
    case 'failed':
      return 1;
    case 'usage':
      return 2;
    case 'environment':
      return 3;
    case 'internal':
      return 4;
  }
}

export const PERF_ERROR_KINDS: readonly PerfErrorKind[] = ['failed', 'usage', 'environment', 'internal'];

/** A kind read back from JSON (a step reply, a shard file); anything unknown is a bug in perf. */
export function perfErrorKind(kind: unknown): PerfErrorKind {
  return PERF_ERROR_KINDS.find((k) => k === kind) ?? 'internal';
}

export function isPerfError(e: unknown): e is PerfError {
  return e instanceof PerfError;
}

/** Levenshtein distance, for "did you mean" suggestions on unknown commands, flags, steps, variants. */
export function editDistance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The valid names closest to `input`, best first (at most `limit`). */
export function closest(input: string, valid: readonly string[], limit = 3): string[] {
  // A third of the length, at least 2: catches typos and near-misses without suggesting noise.
  const maxDistance = Math.max(2, Math.floor(input.length / 3));
  return valid
    .map((name) => ({ name, d: name.startsWith(input) || input.startsWith(name) ? 1 : editDistance(input, name) }))
    .filter((c) => c.d <= maxDistance)
    .sort((x, y) => x.d - y.d || x.name.localeCompare(y.name))
    .slice(0, limit)
    .map((c) => c.name);
}

/**
 * Text safe to print on a terminal: control characters (escape sequences from a hostile or corrupt
 * input file would recolour, move or retitle the user's terminal) become visible \u escapes.
 * Newlines and tabs stay.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
