/**
 * Attribution (issue 27): where a regression is. Every attribution-mode repeat keeps a compact record of
 * where its main thread went (RepeatAttribution, in the run file); a comparison diffs the two runs'
 * records for each regressed or inconclusive primary row (RowAttribution) and keeps the folded stacks of
 * each run's median attribution repeat for a differential flame graph (ComparisonFlame).
 *
 * This module is pure: records in, ranked lines out. Types first; the functions below them.
 */

/** One function as the CPU profile names it. `url` is "path:line:col" (1-based), or a VM bucket name. */
export interface AttributedFunction {
  name: string;
  url: string;
}

/** What one attribution repeat keeps (run file: `repeats[].report.attribution`). Every list is capped and ranked by ms. */
export interface RepeatAttribution {
  /** Self ms of each page function over the measured window (idle, (program) and the harness probe left out). */
  functions: (AttributedFunction & { selfMs: number })[];
  /** Forced (synchronous) layouts and style recalculations, charged to the script function on top of the stack when they ran. */
  forced: (AttributedFunction & { kind: 'layout' | 'style'; ms: number; count: number })[];
  /** Long tasks (> 50 ms on the main thread), charged to the function with the most self time in each. */
  longTasks: (AttributedFunction & { ms: number; count: number })[];
  /** Folded stacks: frames root → leaf, each "name url", with their self ms; the heaviest kept. */
  stacks: { frames: string[]; selfMs: number }[];
}

export type AttributionKind = 'function' | 'forcedLayout' | 'forcedStyle' | 'longTask' | 'step';

/** One line of a row's attribution: a place whose time per repeat changed. */
export interface AttributionLine {
  kind: AttributionKind;
  /** A function's name, or a step's label. */
  name: string;
  /** "path:line:col" of the function; null for a step. */
  url: string | null;
  /** Median ms per repeat in the baseline (a) and the candidate (b). */
  a: number;
  b: number;
  /** Hodges–Lehmann shift b − a, ms per repeat. */
  deltaMs: number;
  /** Its interval (same level as the row's), ms; null when either side has fewer than 2 repeats. */
  ci: { lowMs: number; highMs: number } | null;
  /** deltaMs as a share of the row's own shift when the row is in ms (0..1, may exceed 1); null otherwise. */
  share: number | null;
}

/** Where the change behind one compare row is (compare JSON: `rows[].attribution`). */
export interface RowAttribution {
  /** Ranked by |deltaMs| in the row's direction; at most MAX_ATTRIBUTION_LINES. */
  lines: AttributionLine[];
  /** Attribution repeats read from each run. */
  repeats: { a: number; b: number };
  /** Set when nothing could be named, and why (e.g. "the webdriver driver records no CPU profile"). */
  missing?: string;
}

/** The folded stacks of each run's median attribution repeat (compare JSON: `attribution.flame`). */
export interface ComparisonFlame {
  a: { repeat: number; stacks: RepeatAttribution['stacks'] } | null;
  b: { repeat: number; stacks: RepeatAttribution['stacks'] } | null;
}
