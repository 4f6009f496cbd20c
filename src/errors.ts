/**
 * The one error type thrown by the core. Edges translate it: the CLI into an exit code and one
 * stderr line, MCP into an `isError` result. `kind` says which exit code applies.
 */

import {
  doorSuggestion,
  ERRORS,
  isErrorCode,
  type Door,
  type DoorSuggestion,
  type ErrorCode,
  type KindOf,
  type PerfErrorKind,
} from './error-codes.js';

export {
  DOORS,
  ERRORS,
  doorSuggestion,
  isErrorCode,
  keepGoingAdvice,
  type Door,
  type ErrorCode,
  type PerfErrorKind,
} from './error-codes.js';

export interface PerfErrorInit<C extends ErrorCode = ErrorCode> {
  /** Stable machine-readable code, declared in src/error-codes.ts: a typo does not compile. */
  code: C;
  message: string;
  /** Only where the code declares more than one kind (`kinds`); otherwise its declared kind applies. */
  kind?: KindOf<C>;
  /**
   * What the user can do next, one sentence; without it the edge shows the code's default for its door. One per door
   * where the advice names a door's own flag or argument (`--keep-going` / `keepGoing: true`): the edge picks its own.
   */
  suggestion?: DoorSuggestion;
  /** Close valid names, or the elements a target matched. */
  candidates?: string[];
  cause?: unknown;
  /**
   * What was measured but could not be saved (a run whose file could not be written): the edge
   * prints it as JSON on stderr so that nothing measured is lost.
   */
  salvage?: unknown;
}

/**
 * A PerfError as data (its toJSON): what run files, MCP replies and step results carry. `code` stays a
 * string: a file written by another version may carry a code this one does not declare.
 */
export interface ErrorInfo {
  kind: string;
  code: string;
  message: string;
  /** The throw site's own advice; the door's default is added only where the error is shown. */
  suggestion?: string;
  candidates?: string[];
}

export class PerfError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly kind: PerfErrorKind;
  /** The throw site's advice (the run door's where it gave one per door): what logs and run files keep. */
  readonly suggestion: string | undefined;
  /** The throw site's advice per door, where it differs by door; suggestionAt picks the door's. */
  readonly suggestions: Readonly<Record<Door, string>> | undefined;
  readonly candidates: string[] | undefined;
  readonly salvage: unknown;

  constructor(init: PerfErrorInit<C>) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'PerfError';
    this.code = init.code;
    this.kind = init.kind ?? ERRORS[init.code].kind;
    const s = init.suggestion;
    this.suggestion = typeof s === 'object' ? s.run : s;
    this.suggestions = typeof s === 'object' ? s : undefined;
    this.candidates = init.candidates;
    this.salvage = init.salvage;
  }

  /** The throw site's advice, else the code's default for the door it is shown at. */
  suggestionAt(door: Door): string | undefined {
    return this.suggestions?.[door] ?? this.suggestion ?? doorSuggestion(this.code, door);
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

/**
 * Error data as shown at `door`: the throw site's advice for that door where it gave one per door (`suggestions`, which
 * is dropped: the reader sees one suggestion), else the door's default where the throw site gave none.
 */
export function infoAt<T extends { code: string; suggestion?: string | undefined; suggestions?: Readonly<Record<Door, string>> }>(
  info: T,
  door: Door,
): T {
  if (info.suggestions) {
    const { suggestions, ...rest } = info;
    return { ...rest, suggestion: suggestions[door] } as T;
  }
  if (info.suggestion) return info;
  const suggestion = doorSuggestion(info.code, door);
  return suggestion ? { ...info, suggestion } : info;
}

/**
 * A code read back from the wire (a session daemon's reply, a shard file): a code this version does
 * not declare is reported as internal_error, its own name kept in the message.
 */
export function errorCodeOf(code: string): ErrorCode {
  return isErrorCode(code) ? code : 'internal_error';
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
