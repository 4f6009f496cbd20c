/**
 * `perf run CANDIDATE.yaml --against BASELINE.yaml`: both builds measured in the same rounds (A B B A),
 * one run file each, the comparison printed at the end.
 */
import type { ScaleFlags } from './scale-options.js';
import { relative, resolve } from 'node:path';
import type { RunsComparison } from '../perf/compare-runs.js';
import { againstLabels, type AgainstProgress, type AgainstResult } from '../runner/against.js';
import { runAndJudge } from '../runner/judge.js';
import type { RunFile } from '../perf/run-file.js';
import { loadScenario, type Scenario } from '../scenario/load.js';
import type { RestartMode } from '../drivers/define.js';
import type { PerfErrorKind } from '../errors.js';
import { appendToGithubStepSummary } from '../../reporters/index.js';
import { budgetMarkdown } from '../../reporters/markdown.js';
import { budgetLines } from '../../reporters/table.js';
import type { FlagValues } from './args.js';
import { info, printJson, printText } from './command.js';
import { noteInconclusive, renderComparison } from './compare.js';
import { compareReportPath, writeHtmlCompareReport } from './html-report.js';
import { gitFor, historyLocation, recordAfter } from './history.js';
import { NO_GIT } from '../history/git.js';
import { describeRepeat, interruptible, lookPrinter, runOverrides, sequentialFlags, type SequentialFlags } from './run-options.js';

export interface AgainstFlags {
  variant?: string;
  label?: string;
  out: string;
  repeat?: number;
  warmup?: number;
  restart?: RestartMode;
  /** --engine: both arms in this engine. */
  engine?: Scenario['browser']['engine'];
  timing?: boolean;
  reporters: string[];
}

/** Progress on stderr: one line per repeat, naming the arm, so the A B B A order is visible. */
export function againstProgressPrinter(quiet: boolean): (e: AgainstProgress) => void {
  if (quiet) return () => undefined;
  const t0 = Date.now();
  return (e) => {
    switch (e.kind) {
      case 'start':
        info(`--against: ${e.perArm} repeats per arm (${e.warmup} warmup), interleaved A B B A: ${e.total} in all`);
        break;
      case 'repeat-start':
        break;
      case 'repeat-end': {
        const r = e.record;
        const what = describeRepeat(r);
        info(
          `[${e.sequence + 1}/${e.total}] ${e.arm.padEnd(9)} repeat ${r.index + 1}${r.warmup ? ' (warmup)' : ''}` +
            ` ${r.mode}: ${what} · ${((Date.now() - t0) / 1000).toFixed(0)}s`,
        );
        break;
      }
    }
  };
}

/**
 * Run both arms interleaved and compare them, sampling to a decision unless --fixed. Ctrl-C stops after
 * the current repeat and still writes both files. The two files come from two scenario files by design
 * (the baseline's points at the other build), so a differing scenario name is expected, not refused; it
 * is still listed among the warnings.
 */
export function executeAgainst(
  baseline: Scenario,
  candidate: Scenario,
  flags: AgainstFlags,
  seq: SequentialFlags,
  quiet: boolean,
  scale: ScaleFlags = {},
): Promise<{ res: AgainstResult; comparison: RunsComparison | undefined; exitCode: 0 | 1 }> {
  return interruptible((signal) =>
    runAndJudge({
      kind: 'against',
      baseline,
      candidate,
      strict: seq.strict,
      options: {
        labels: againstLabels(flags.label),
        outDir: flags.out,
        ...scale,
        ...runOverrides(flags),
        signal,
        onProgress: againstProgressPrinter(quiet),
        fixed: seq.fixed,
        ...(seq.maxRepeat !== undefined ? { maxRepeat: seq.maxRepeat } : {}),
        ...(seq.budgetMs !== undefined ? { budgetMs: seq.budgetMs } : {}),
        onLook: lookPrinter(quiet, '--against'),
      },
    }),
  );
}

/** Load the pair: --var applies to both arms, --baseline-var (after it) to the baseline only. */
export function loadAgainstPair(
  candidateFile: string,
  baselineFile: string,
  variant: string | undefined,
  vars: Record<string, string>,
  baselineVars: Record<string, string>,
  allowOutside = false,
  engine?: Scenario['browser']['engine'],
): { baseline: Scenario; candidate: Scenario } {
  const v = { ...(variant !== undefined ? { variant } : {}), ...(engine !== undefined ? { engine } : {}), allowOutside };
  // Two different files may each declare their own vars, so --var is checked against the pair only when they are one file.
  const same = resolve(candidateFile) === resolve(baselineFile);
  const flagged = (names: Record<string, string>, flag: '--var' | '--baseline-var') =>
    Object.fromEntries(Object.keys(names).map((k) => [k, flag] as const));
  const candidate = loadScenario(candidateFile, { ...v, vars, varFlags: same ? flagged(vars, '--var') : {} });
  const baseline = loadScenario(baselineFile, {
    ...v,
    vars: { ...vars, ...baselineVars },
    varFlags: flagged(baselineVars, '--baseline-var'),
  });
  return { baseline, candidate };
}

/** `perf run X.yaml --against Y.yaml`, after perf run parsed its flags. */
export async function runAgainstCommand(
  f: FlagValues,
  candidateFile: string,
  flags: AgainstFlags,
  vars: Record<string, string>,
  baselineVars: Record<string, string>,
  writeReporters: (run: RunFile, path: string, names: string[]) => string[],
  scale: ScaleFlags = {},
  bisect = false,
): Promise<number> {
  const baselineFile = f.against as string;
  const { baseline, candidate } = loadAgainstPair(
    candidateFile,
    baselineFile,
    flags.variant,
    vars,
    baselineVars,
    f.allowOutside === true,
    flags.engine,
  );
  const quiet = f.quiet === true || f.json === true;
  const seq = sequentialFlags(f, 'run');
  const git = gitFor(f);
  const { res, comparison, exitCode } = await executeAgainst(baseline, candidate, flags, seq, quiet, scale);
  const written = [
    ...writeReporters(res.baseline.run, res.baseline.path, flags.reporters),
    ...writeReporters(res.candidate.run, res.candidate.path, flags.reporters),
  ];
  if (comparison && flags.reporters.includes('html')) {
    written.push(
      writeHtmlCompareReport(
        comparison,
        { run: res.baseline.run, file: res.baseline.path },
        { run: res.candidate.run, file: res.candidate.path },
        compareReportPath(res.candidate.path),
      ),
    );
  }
  const rel = (p: string): string => relative(process.cwd(), p) || p;
  if (comparison && flags.reporters.includes('markdown'))
    appendToGithubStepSummary(
      withBudgets(renderComparison(comparison, res.baseline.run, res.candidate.run, 'markdown'), budgetMarkdown(budgetsOf(res))),
    );
  if (f.json) {
    const strip = ({ repeats: _omit, ...rest }: RunFile): Omit<RunFile, 'repeats'> => rest;
    printJson({
      baseline: { path: res.baseline.path, ...strip(res.baseline.run) },
      candidate: { path: res.candidate.path, ...strip(res.candidate.run) },
      compare: comparison ?? null,
      reports: written,
    });
  } else if (!f.quiet) {
    const color = process.stdout.isTTY === true;
    if (comparison) {
      const table = renderComparison(comparison, res.baseline.run, res.candidate.run, 'table', color, f.all === true);
      printText(withBudgets(table, budgetLines(budgetsOf(res), color)), color);
    }
    info(
      `run files: ${rel(res.baseline.path)} (baseline), ${rel(res.candidate.path)} (candidate)` +
        `${written.length ? `; reports: ${written.map(rel).join(', ')}` : ''}`,
    );
  }
  if (!comparison) {
    const empty = [res.baseline, res.candidate].filter((x) => x.run.summary.measured === 0).map((x) => rel(x.path));
    info(`perf: nothing to compare: no measured repeat in ${empty.join(' and ')}`);
  }
  if (res.baseline.run.interrupted) {
    info('interrupted: the run files hold the repeats measured so far');
    return 130;
  }
  if (comparison?.verdict === 'inconclusive' && !f.json) noteInconclusive(`perf: inconclusive: ${comparison.gate.summary}`, seq.strict);
  // The baseline arm measured other code than HEAD: recorded without git facts, so it is never taken as HEAD's baseline.
  const recorded = await recordAfter(
    historyLocation(f),
    [{ run: res.baseline.run, path: res.baseline.path, git: NO_GIT }, res.candidate],
    exitCode,
    {
      quiet,
      ...(git ? { git } : {}),
      ...(comparison ? { verdicts: [{ baseline: 0, candidate: 1, comparison }] } : {}),
    },
  );
  // Under git bisect run, a history that could not be written says so on stderr but never turns the verdict into "bad".
  return bisect ? bisectVerdictCode(comparison?.verdict) : recorded;
}

/**
 * `git bisect run`'s reading of an exit code (git-bisect(1), "bisect run"): 0 good, 1–127 but 125 bad, 125 skip this
 * commit, 128 and above abort. A regression is bad; a verdict the repeats could not reach, or no comparison at all, says
 * nothing about the commit: skip it rather than let noise pick a side.
 */
export const BISECT_EXIT = { good: 0, bad: 1, skip: 125, abort: 128 } as const;

function bisectVerdictCode(verdict: RunsComparison['verdict'] | undefined): number {
  switch (verdict) {
    case 'fail':
      return BISECT_EXIT.bad;
    case 'pass':
    case 'warn':
      return BISECT_EXIT.good;
    case 'inconclusive':
    case undefined:
      return BISECT_EXIT.skip;
  }
}

/**
 * An error's exit code under --bisect-exit: the app or browser failing at this commit (environment) or every repeat
 * failing (failed) skips the commit; bad input or a bug in perf would fail the same way at every commit, so it aborts.
 */
export function bisectErrorCode(kind: PerfErrorKind): number {
  switch (kind) {
    case 'environment':
    case 'failed':
      return BISECT_EXIT.skip;
    case 'usage':
    case 'internal':
      return BISECT_EXIT.abort;
  }
}

/** The candidate's budgets: they fail the run as a regression does (runner/judge.ts againstExitCode). */
function budgetsOf(res: AgainstResult): { budget: RunFile['budgets'][number] }[] {
  return res.candidate.run.budgets.map((budget) => ({ budget }));
}

/** The compare's verdict line, then the budgets (they decide the exit code too, so not below the table), then the rest. */
function withBudgets(text: string, budgets: string[]): string {
  if (!budgets.length) return text;
  const nl = text.indexOf('\n');
  return `${text.slice(0, nl + 1)}${budgets.join('\n')}\n${text.slice(nl + 1)}`;
}
