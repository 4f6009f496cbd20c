/**
 * A reporter is declared once with defineReporter({...}) and listed in reporters/index.ts. The same
 * declaration serves `perf run --reporter NAME` (renderRun) and `perf compare --reporter NAME`
 * (renderCompare), so a new format touches its own file and the list, nothing else.
 *
 * Reporters are pure: data in, text out. Writing files, $GITHUB_STEP_SUMMARY and stdout belong to the
 * CLI, which is what keeps every reporter testable on hand-made objects without a browser.
 */
import type { CompareResult } from '../src/perf/compare.js';
import type { RunFile } from '../src/perf/run-file.js';

/**
 * What a compare renders. The core's CompareResult plus the optional fields the compare command adds
 * around it (DESIGN.md "Compare": thresholds, frames, timing); optional so a bare compareMetrics()
 * result renders too.
 */
export type CompareReport = CompareResult & {
  thresholds?: { warnPct: number; errorPct: number; metrics?: Record<string, { warnPct?: number; errorPct?: number }> };
  frames?: { painted: { a: number | null; b: number | null } };
  timing?: { gated: boolean; note: string };
  host?: { same: boolean; note?: string };
  gate?: { summary: string; notJudged?: { metric: string; why: string }[]; sequential?: { note: string } | null };
};

/** The two run files a compare judged: a = baseline, b = candidate. */
export interface CompareContext {
  a: RunFile;
  b: RunFile;
}

export interface RenderOptions {
  /**
   * ANSI colours (terminal reporters only). Default false: files, pipes and CI logs get plain text;
   * the CLI passes `process.stdout.isTTY` when printing to a terminal.
   */
  color?: boolean;
}

export interface Reporter {
  /** The `--reporter` value. */
  readonly name: string;
  /** One line for `--help`. */
  readonly description: string;
  /**
   * Suffix of the file written beside the run file, without the leading dot. Never plain "json": that
   * would overwrite the run file itself (see reportPathFor).
   */
  readonly fileExtension: string;
  renderRun(run: RunFile, options?: RenderOptions): string;
  renderCompare(result: CompareReport, ctx: CompareContext, options?: RenderOptions): string;
}

/** Identity at runtime; gives each declaration the Reporter type and a literal name. */
export function defineReporter<const N extends string>(def: Reporter & { name: N }): Reporter & { readonly name: N } {
  return def;
}

/**
 * Where a reporter's output goes beside a run file: `build/perf/list-run.json` → `list-run.md`,
 * `list-run.junit.xml`, `list-run.summary.json`. The extension replaces a trailing `.json` only.
 */
export function reportPathFor(runFilePath: string, reporter: Pick<Reporter, 'fileExtension'>): string {
  const stem = runFilePath.endsWith('.json') ? runFilePath.slice(0, -'.json'.length) : runFilePath;
  return `${stem}.${reporter.fileExtension}`;
}
