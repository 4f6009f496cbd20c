/**
 * A reporter is declared once with defineReporter({...}) and listed in reporters/index.ts. The same
 * declaration serves `perf run --reporter NAME` (renderRun) and `perf compare --reporter NAME`
 * (renderCompare), so a new format touches its own file and the list, nothing else.
 *
 * Reporters are pure: data in, text out. Writing files, $GITHUB_STEP_SUMMARY and stdout belong to the
 * CLI, which is what keeps every reporter testable on hand-made objects without a browser.
 */
import type { InsightChange } from '../src/perf/compare/insight-changes.js';
import type { ComparisonFlame } from '../src/perf/attribution.js';
import type { CompareResult } from '../src/perf/compare.js';
import type { RunFile } from '../src/perf/run-file.js';
import { plainText } from '../src/printable.js';

/**
 * What a compare renders. The core's CompareResult plus the optional fields the compare command adds
 * around it (DESIGN.md "Compare": thresholds, frames, timing); optional so a bare compareMetrics()
 * result renders too.
 */
export type CompareReport = CompareResult & {
  thresholds?: { warnPct: number; errorPct: number; metrics?: Record<string, { warnPct?: number; errorPct?: number }> };
  frames?: { painted: { a: number | null; b: number | null } };
  timing?: { gated: boolean; note: string };
  host?: { same: boolean; note?: string; busy?: { repeats: number; of: number; note: string } };
  gate?: {
    summary: string;
    primary?: string[];
    setAside?: { metric: string; why: string; deltaPct: number | null }[];
    notJudged?: { metric: string; why: string }[];
    sequential?: { note: string } | null;
  };
  attribution?: { flame: ComparisonFlame };
  /** Insights that changed between the runs (perf/compare/insight-changes.ts): they explain, never decide. */
  insights?: InsightChange[];
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
  /**
   * Table only: every metric row (`--all`, and the table file a run writes). Default false: the first screen,
   * the verdict and the metrics that decide, then the findings.
   */
  all?: boolean;
  /**
   * HTML only: what the CLI read beside the run files (frame timelines from the saved traces, failure
   * screenshots, trace links), so the reporter itself stays free of I/O. Absent: the report draws what
   * the run files alone hold.
   */
  html?: HtmlContext;
}

/** One run file's surroundings, resolved by the CLI (src/cli/html-report.ts). */
export interface HtmlRunContext {
  /** The run file as the reader should see it named (a path relative to the working folder). */
  source?: string;
  /** Every frame of a repeat's measured window, read from its trace: the median and the slowest repeat. */
  timelines?: FrameTimeline[];
  /** What became of each failed repeat's screenshot, by repeat index (src/cli/html-report.ts decides). */
  screenshots?: Record<number, ScreenshotShown>;
  /** The traces saved beside the run file, as links relative to the report. */
  traces?: { which: 'median' | 'slowest'; repeat: number; href: string }[];
}

/**
 * A failure screenshot: embedded when small, linked when large, and neither (with the reason, shown in
 * the report) unless it is a regular PNG file inside the run file's folder.
 */
export type ScreenshotShown =
  { status: 'embedded'; dataUrl: string } | { status: 'linked'; href: string } | { status: 'not-shown'; why: string };

export interface FrameTimeline {
  which: 'median' | 'slowest';
  repeat: number;
  /** Frames from the window's start: when each began, how long it stayed on screen, and what became of it. */
  frames: { atMs: number; ms: number; state: 'presented' | 'partial' | 'dropped' }[];
}

/** `run` for a run report; `a` (baseline) and `b` (candidate) for a compare. */
export interface HtmlContext {
  run?: HtmlRunContext;
  a?: HtmlRunContext;
  b?: HtmlRunContext;
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
  /**
   * What it writes, which decides how nothing of a hostile input gets through: `text` (a terminal, a CI
   * log, a PR comment) passes its whole output through the one sanitiser last (src/printable.ts: escape
   * sequences and control characters out, the report's own colours kept); `html` escapes with its own
   * escaper; `json` is written by jsonText.
   */
  readonly format: 'text' | 'html' | 'json';
  renderRun(run: RunFile, options?: RenderOptions): string;
  renderCompare(result: CompareReport, ctx: CompareContext, options?: RenderOptions): string;
}

/** The declaration with the Reporter type and a literal name; a `text` reporter's output sanitised as it leaves. */
export function defineReporter<const N extends string>(def: Reporter & { name: N }): Reporter & { readonly name: N } {
  if (def.format !== 'text') return def;
  const last = (out: string, options: RenderOptions | undefined): string => plainText(out, { sgr: options?.color === true });
  return {
    ...def,
    renderRun: (run, options) => last(def.renderRun(run, options), options),
    renderCompare: (result, ctx, options) => last(def.renderCompare(result, ctx, options), options),
  };
}

/**
 * Where a reporter's output goes beside a run file: `build/perf/list-run.json` → `list-run.md`,
 * `list-run.junit.xml`, `list-run.summary.json`. The extension replaces a trailing `.json` only.
 */
export function reportPathFor(runFilePath: string, reporter: Pick<Reporter, 'fileExtension'>): string {
  const stem = runFilePath.endsWith('.json') ? runFilePath.slice(0, -'.json'.length) : runFilePath;
  return `${stem}.${reporter.fileExtension}`;
}
