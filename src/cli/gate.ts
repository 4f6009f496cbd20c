/**
 * `perf gate [scenarios…] --baselines baselines/`: the CI gate. Runs every scenario (every variant
 * unless one is named), compares each run with its committed baseline, prints one summary, and exits 1
 * on any error-level regression. A scenario without a baseline FAILS the gate ("missing baseline"):
 * a gate that passes because it had nothing to compare against would be a silent hole in CI.
 * Each run's budgets (judged on the candidate when its run file is written, as for perf run) are the
 * gate's first line of judgement: a broken one fails the gate whatever the compare says, since a
 * baseline as bad as the candidate would otherwise let it pass for ever.
 * `--update` (re)writes the baselines from this run instead of comparing it, and still fails on a broken
 * budget (Lighthouse CI's `lhci assert`: a budget is absolute, whichever run recorded it).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { ensureDir, fileInFolder, writeFileAtomic } from '../files.js';
import { dirname, join, relative } from 'node:path';
import { exitCodeOf, isPerfError, PerfError, type PerfErrorKind } from '../errors.js';
import { oneLine, plainText } from '../printable.js';
import { compareRuns, readRunFile, type RunsComparison } from '../perf/compare-runs.js';
import type { CompareRow } from '../perf/compare.js';
import { failedBudgets, type BudgetResult, type RunFile } from '../perf/run-file.js';
import { checkVarFlagsAcross, loadScenario, type Scenario } from '../scenario/load.js';
import { writeJsonAtomic } from '../session/state.js';
import { appendToGithubStepSummary, getReporter, reportPathFor } from '../../reporters/index.js';
import { budgetValue, formatDelta } from '../../reporters/format.js';
import { budgetSuiteXml, xmlAttr, xmlText } from '../../reporters/junit.js';
import { budgetMarkdown, mdCode, mdText } from '../../reporters/markdown.js';
import { budgetLines } from '../../reporters/table.js';
import { flagsOf, type FlagValues } from './args.js';
import { ALL_FLAG, ALLOW_OUTSIDE_FLAG, defineCommand, info, JSON_FLAG, printJson, printText } from './command.js';
import { noteInconclusive, renderComparison } from './compare.js';
import {
  checkNameFlag,
  engineFlag,
  interruptible,
  lookPrinter,
  parseVars,
  progressPrinter,
  SEQUENTIAL_FLAGS,
  sequentialFlags,
} from './run-options.js';
import { RUN_OPTIONS, SCALE_OPTIONS, STOP_OPTIONS } from '../runner/options.js';
import { parseShard, selectShard, shardFile, shardFileName, shardKey } from './shard.js';
import { scaleFlags, SCALE_FLAGS } from './scale-options.js';
import { gridUrlOf } from '../session/grid.js';
import { interleavedTiming } from '../runner/against.js';
import { runToDecision } from '../runner/sequential.js';
import { writeHtmlCompareReport, writeHtmlRunReport } from './html-report.js';
import { renderGateIndex } from '../../reporters/html.js';
import { compareExitCode } from '../perf/compare-runs.js';
import { historyBaseline, type HistoryBaseline } from '../history/baseline.js';
import { checkRef, projectName } from '../history/git.js';
import type { SqlHistoryStore } from '../history/store.js';
import { gitFor, HISTORY_FLAG, historyLocation, openStore, recordAfter, type ToRecord, type VerdictToRecord } from './history.js';
import type { GitInfo } from '../history/types.js';

/** Label of the gate's own run files in --out; baselines are stored with label `baseline`. */
export const GATE_LABEL = 'gate';
export const BASELINE_LABEL = 'baseline';

export type GateOutcome =
  | { status: 'compared'; comparison: RunsComparison; baseline: RunFile }
  /** why: set when the baseline was looked for in a history (--baseline history) and not found. */
  | { status: 'missing-baseline'; why?: string }
  | { status: 'updated'; previous: RunsComparison | null }
  | { status: 'unmeasured'; reason: string }
  | { status: 'invalid-baseline'; error: PerfError }
  | { status: 'error'; error: PerfError };

export interface GateEntry {
  /** `<scenario>[-<variant>]`: the baseline's file stem. */
  id: string;
  scenario: string;
  variant: string | null;
  scenarioFile: string;
  baselineFile: string;
  runFile: string | null;
  run: RunFile | null;
  outcome: GateOutcome;
  /** --baseline history: which commit the baseline came from, and how many repeats it had. */
  baselineFrom?: string;
}

export type GateVerdict = 'pass' | 'warn' | 'fail' | 'inconclusive';

/**
 * The candidate's budgets as its run file holds them (judged by the runner, the way perf run's are); none
 * for a run that measured nothing: its entry fails on that already, and every budget would read "no value".
 */
function entryBudgets(e: GateEntry): BudgetResult[] {
  return e.run && e.run.summary.measured > 0 ? e.run.budgets : [];
}

function brokenBudgets(e: GateEntry): BudgetResult[] {
  return failedBudgets({ budgets: entryBudgets(e) });
}

/** What each entry does to the gate: fail, warn or pass. A broken budget fails it whatever the compare said. */
export function entryVerdict(e: GateEntry): GateVerdict {
  const o = e.outcome;
  if (brokenBudgets(e).length) return 'fail';
  switch (o.status) {
    case 'compared':
      return o.comparison.verdict;
    case 'updated':
      return 'pass';
    case 'missing-baseline':
    case 'unmeasured':
    case 'invalid-baseline':
    case 'error':
      return 'fail';
  }
}

export function gateVerdict(entries: GateEntry[]): GateVerdict {
  const v = entries.map(entryVerdict);
  return v.includes('fail') ? 'fail' : v.includes('inconclusive') ? 'inconclusive' : v.includes('warn') ? 'warn' : 'pass';
}

/**
 * DESIGN.md exit codes: 1 when anything was judged failed (error regression, broken budget, missing
 * baseline, nothing measured); otherwise 2 for an unusable baseline file, 3 for an environment problem; else 0.
 */
export function gateExitCode(entries: GateEntry[], strict = false): number {
  const statuses = entries.map((e) => e.outcome);
  if (entries.some((e) => brokenBudgets(e).length)) return 1;
  if (entries.some((e) => e.outcome.status === 'compared' && compareExitCode(e.outcome.comparison, strict) === 1)) return 1;
  if (statuses.some((o) => o.status === 'missing-baseline' || o.status === 'unmeasured')) return 1;
  if (statuses.some((o) => o.status === 'invalid-baseline')) return 2;
  const kinds = statuses.flatMap((o) => (o.status === 'error' ? [o.error.kind] : []));
  for (const k of ['failed', 'usage', 'environment', 'internal'] as PerfErrorKind[]) if (kinds.includes(k)) return exitCodeOf(k);
  return 0;
}

/** `<dir>/<scenario>[-<variant>].json`, checked on the resolved path to lie in `dir` (--update writes it). */
export function baselinePath(dir: string, sc: Pick<Scenario, 'name' | 'variant'>): string {
  return fileInFolder(dir, `${sc.name}${sc.variant ? `-${sc.variant}` : ''}.json`, 'perf gate baseline');
}

/**
 * Where a plain `perf gate` looks: perf/ is the folder the README puts a project's scenarios in (as a
 * Playwright user's tests sit in the folder its runner finds without arguments), scenarios/ is where this
 * repository and earlier projects keep theirs.
 */
export const DEFAULT_SCENARIO_DIRS = ['perf', 'scenarios'] as const;

/** Default scenario set: every *.yaml / *.yml in ./perf and ./scenarios, sorted within each folder. */
export function defaultScenarioFiles(cwd: string): string[] {
  return DEFAULT_SCENARIO_DIRS.flatMap((folder) => {
    const dir = join(cwd, folder);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
    return readdirSync(dir)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()
      .map((f) => join(folder, f));
  });
}

/** Two scenarios (say perf/home.yaml and a copy for --against with the same name) would share a baseline file: exit 2. */
function refuseSharedBaselines(baselinesDir: string, scenarios: Scenario[], cwd: string): void {
  const seen = new Map<string, Scenario>();
  for (const sc of scenarios) {
    const file = baselinePath(baselinesDir, sc);
    const first = seen.get(file);
    if (first)
      throw new PerfError({
        code: 'scenario_invalid',
        message:
          `gate: ${relative(cwd, first.file) || first.file} and ${relative(cwd, sc.file) || sc.file} ` +
          `would share the baseline ${relative(cwd, file) || file} ` +
          `(both are named "${sc.name}"${sc.variant ? `, variant ${sc.variant}` : ''})`,
        suggestion: 'give each scenario its own name:, or pass the scenario files to gate',
      });
    seen.set(file, sc);
  }
}

/** The browser engine a run was measured in: none for a terminal program's (the run file names it when not cdp). */
export function engineOfRun(run: Pick<RunFile, 'env'>): string | undefined {
  const b = run.env?.browser;
  return b?.driver === 'pty' ? undefined : (b?.engine ?? 'chromium');
}

/**
 * A stored baseline measured in another engine than its scenario runs in now (--engine, or the file's browser.engine):
 * exit 2 naming both, before any browser starts. Two engines' timings are two products, never a regression.
 */
function refuseOtherEngine(baselinesDir: string, scenarios: Scenario[], cwd: string): void {
  for (const sc of scenarios) {
    const file = baselinePath(baselinesDir, sc);
    const baseline = readBaseline(file);
    const stored = baseline && engineOfRun(baseline);
    if (stored === undefined || sc.app.terminal !== undefined || stored === sc.browser.engine) continue;
    throw new PerfError({
      code: 'runs_not_comparable',
      message:
        `gate: the baseline ${relative(cwd, file) || file} was measured in ${stored}, ` +
        `and ${relative(cwd, sc.file) || sc.file} runs in ${sc.browser.engine}: both arms must be one engine`,
      suggestion: `run perf gate --engine ${stored}, or record a ${sc.browser.engine} baseline (--update) in its own --baselines`,
    });
  }
}

/**
 * Every (scenario, variant) to run, loaded up front so a bad scenario stops the gate before any browser
 * starts (exit 2). With `variant`, scenarios without variants run as they are; a scenario that declares
 * variants but not this one is an error.
 */
export function planGate(
  files: string[],
  opts: { variant?: string; vars?: Record<string, string>; allowOutside?: boolean; engine?: Scenario['browser']['engine'] },
): Scenario[] {
  const out: Scenario[] = [];
  const vars = opts.vars ?? {};
  // --engine in place of each file's browser.engine, as perf run --engine does (loadScenario's engine).
  const engine = opts.engine !== undefined ? { engine: opts.engine } : {};
  // --var sets a var in every scenario: a name is a typo only when none of them knows it.
  checkVarFlagsAcross(files, Object.fromEntries(Object.keys(vars).map((k) => [k, '--var'] as const)));
  const varFlags = {};
  for (const file of files) {
    let variants: (string | undefined)[] = [undefined];
    try {
      out.push(loadScenario(file, { vars, varFlags, allowOutside: opts.allowOutside === true, ...engine }));
      continue;
    } catch (e) {
      if (!isPerfError(e) || e.code !== 'variant_required') throw e;
      variants = opts.variant !== undefined ? [opts.variant] : (e.candidates ?? []);
    }
    for (const v of variants)
      out.push(
        loadScenario(file, {
          ...(v !== undefined ? { variant: v } : {}),
          vars,
          varFlags,
          allowOutside: opts.allowOutside === true,
          ...engine,
        }),
      );
  }
  return out;
}

/** Judge one fresh run against its baseline file (or write the baseline with update). */
export function judgeEntry(
  sc: Scenario,
  run: RunFile,
  runFile: string,
  baselinesDir: string,
  update: boolean,
  cwd = process.cwd(),
  decided?: RunsComparison,
  fromHistory?: HistoryBaseline,
): GateEntry {
  if (fromHistory) return judgeFromHistory(sc, run, runFile, fromHistory, cwd, decided);
  const baselineFile = baselinePath(baselinesDir, sc);
  const id = `${sc.name}${sc.variant ? `-${sc.variant}` : ''}`;
  const base = { id, scenario: sc.name, variant: sc.variant, scenarioFile: relative(cwd, sc.file) || sc.file, baselineFile, runFile, run };
  if (run.summary.measured === 0) {
    return {
      ...base,
      outcome: { status: 'unmeasured', reason: `no measured repeat (${run.summary.refused} refused, ${run.summary.failed} failed)` },
    };
  }
  let previous: { comparison: RunsComparison; baseline: RunFile } | undefined;
  let previousError: PerfError | undefined;
  if (existsSync(baselineFile)) {
    try {
      const baseline = readRunFile(baselineFile);
      previous = {
        baseline,
        comparison: decided && !update ? decided : compareRuns(baseline, run, { files: { a: baselineFile, b: runFile } }),
      };
    } catch (e) {
      if (!isPerfError(e)) throw e;
      previousError = e;
    }
  }
  if (update) {
    ensureDir(dirname(baselineFile), 'perf gate --update');
    // The traces stay beside the run file in --out; a baseline pointing at them would dangle once committed.
    const { traces: _traces, ...kept } = run;
    writeJsonAtomic(baselineFile, { ...kept, label: BASELINE_LABEL });
    return { ...base, outcome: { status: 'updated', previous: previous?.comparison ?? null } };
  }
  if (previousError) return { ...base, outcome: { status: 'invalid-baseline', error: previousError } };
  if (!previous) return { ...base, outcome: { status: 'missing-baseline' } };
  return { ...base, outcome: { status: 'compared', ...previous } };
}

/** The history's name for a baseline: `history:BRANCH@COMMIT`. */
function historyBaselineName(h: HistoryBaseline, branch: string | undefined): string {
  return h.status === 'found' ? `history:${h.branch}@${h.commit.slice(0, 12)}` : `history${branch ? `:${branch}` : ''}`;
}

/** judgeEntry with a baseline taken from the history (--baseline history): missing is a failed entry with the reason. */
function judgeFromHistory(
  sc: Scenario,
  run: RunFile,
  runFile: string,
  h: HistoryBaseline,
  cwd: string,
  decided?: RunsComparison,
): GateEntry {
  const id = `${sc.name}${sc.variant ? `-${sc.variant}` : ''}`;
  const baselineFile = historyBaselineName(h, undefined);
  const base = { id, scenario: sc.name, variant: sc.variant, scenarioFile: relative(cwd, sc.file) || sc.file, baselineFile, runFile, run };
  if (run.summary.measured === 0) {
    return {
      ...base,
      outcome: { status: 'unmeasured', reason: `no measured repeat (${run.summary.refused} refused, ${run.summary.failed} failed)` },
    };
  }
  if (h.status === 'missing') return { ...base, outcome: { status: 'missing-baseline', why: h.why } };
  const baselineFrom =
    `commit ${h.commit.slice(0, 12)} on ${h.branch}` +
    `${h.commitsBack ? ` (${h.commitsBack} commits before the merge-base)` : ' (the merge-base)'}, ${h.repeats} repeats`;
  const comparison = decided ?? compareRuns(h.run, run, { files: { a: baselineFile, b: runFile } });
  return { ...base, baselineFrom, outcome: { status: 'compared', comparison, baseline: h.run } };
}

// ─── rendering ──────────────────────────────────────────────────────────────────────────────────────

const VERDICT_WORD: Record<GateVerdict, string> = { pass: 'PASS', warn: 'WARN', fail: 'FAIL', inconclusive: 'INCONCLUSIVE' };

function regressions(c: RunsComparison): CompareRow[] {
  return c.rows.filter(
    (r) => r.gated && (r.verdict === 'regressed' || r.verdict === 'missing') && (r.severity === 'error' || r.severity === 'warn'),
  );
}

// 3 metrics: enough to name the problem on one summary line; the detail table lists the rest.
const WORST_SHOWN = 3;

/** "budget X broken (median V)": what fails the entry before anything the compare says. */
function brokenBudgetsPhrase(e: GateEntry): string {
  const broken = brokenBudgets(e);
  if (!broken.length) return '';
  const shown = broken.slice(0, WORST_SHOWN).map((b) => `${b.expr} (${budgetValue(b)})`);
  const more = broken.length > WORST_SHOWN ? ` +${broken.length - WORST_SHOWN} more` : '';
  return `${broken.length === 1 ? 'budget' : `${broken.length} budgets`} broken: ${shown.join(', ')}${more}; `;
}

/** One phrase: what this entry's line in the summary says, a broken budget first. */
export function entryDetail(e: GateEntry, cwd = process.cwd()): string {
  return brokenBudgetsPhrase(e) + outcomeDetail(e, cwd);
}

function outcomeDetail(e: GateEntry, cwd: string): string {
  const rel = (p: string): string => relative(cwd, p) || p;
  const o = e.outcome;
  switch (o.status) {
    case 'compared': {
      const c = o.comparison;
      const regs = regressions(c);
      const n = `${c.candidate.measured} repeats${c.gate.sequential ? `, look ${c.gate.look}` : ''}`;
      const host = c.host.same ? '' : "; baseline from another host: only the app's own work is gated";
      const from = e.baselineFrom ? `; baseline ${e.baselineFrom}` : '';
      if (c.verdict === 'inconclusive') return `${c.gate.summary} (${n})${host}${from}`;
      if (!regs.length)
        return `no significant regression (${c.rows.filter((r) => r.verdict === 'improved').length} improved; ${n})${host}${from}`;
      const shown = regs
        .slice(0, WORST_SHOWN)
        .map((r) => (r.verdict === 'missing' ? `${r.metric} missing (not measured)` : `${r.metric} ${formatDelta(r)} (${r.severity})`));
      return shown.join(', ') + (regs.length > WORST_SHOWN ? ` +${regs.length - WORST_SHOWN} more` : '') + ` (${n})${host}${from}`;
    }
    case 'missing-baseline':
      if (o.why !== undefined) return `missing baseline in the history: ${o.why}; record one with \`perf run --history\` on that commit`;
      return `missing baseline ${rel(e.baselineFile)}: run \`perf gate --update\` to record it`;
    case 'updated':
      return (
        `baseline written: ${rel(e.baselineFile)}` + `${o.previous ? ` (was ${VERDICT_WORD[o.previous.verdict]} against the old one)` : ''}`
      );
    case 'unmeasured':
      return o.reason;
    case 'invalid-baseline':
    case 'error':
      return o.error.message;
  }
}

function statusWord(e: GateEntry): string {
  if (brokenBudgets(e).length) return 'FAIL';
  switch (e.outcome.status) {
    case 'missing-baseline':
      return 'MISSING';
    case 'updated':
      return 'UPDATED';
    case 'unmeasured':
    case 'invalid-baseline':
    case 'error':
      return 'ERROR';
    case 'compared':
      return VERDICT_WORD[e.outcome.comparison.verdict];
  }
}

function headline(entries: GateEntry[]): string {
  const n = { fail: 0, inconclusive: 0, warn: 0, pass: 0, missing: 0, updated: 0, error: 0, budgets: 0 };
  for (const e of entries) {
    const s = e.outcome.status;
    n.budgets += brokenBudgets(e).length;
    if (s === 'missing-baseline') n.missing++;
    else if (s === 'updated') n.updated++;
    else if (s === 'compared') n[entryVerdict(e)]++;
    else n.error++;
  }
  const parts = [
    n.fail && `${n.fail} failed`,
    n.missing && `${n.missing} missing baseline`,
    n.error && `${n.error} error`,
    n.inconclusive && `${n.inconclusive} inconclusive`,
    n.warn && `${n.warn} warned`,
    n.pass && `${n.pass} passed`,
    n.updated && `${n.updated} baseline${n.updated === 1 ? '' : 's'} updated`,
  ].filter(Boolean);
  const budgets = n.budgets ? ` (${n.budgets} budget${n.budgets === 1 ? '' : 's'} broken)` : '';
  return `${entries.length} run${entries.length === 1 ? '' : 's'}: ${parts.join(', ')}${budgets}`;
}

/** Every run's budgets, each named by its run: the gate's first lines after its verdict. */
function gateBudgets(entries: readonly GateEntry[]): { budget: BudgetResult; run: string }[] {
  return entries.flatMap((e) => entryBudgets(e).map((budget) => ({ budget, run: e.id })));
}

/** "★ decided on counters.layouts, …; set aside as noisy: …", under a passing run's line. */
function decidedOnLine(c: RunsComparison, width: number): string {
  const aside = (c.gate.setAside ?? []).map((x) => x.metric);
  const noisy = aside.length ? `; set aside as noisy: ${aside.join(', ')}` : '';
  return `${' '.repeat(width + 12)}★ decided on ${c.gate.primary.join(', ') || 'no primary metric'}${noisy}`;
}

/** The summary for the terminal: the verdict, the budgets, one line per run, then the compare table of each run that warned or failed. */
export function renderGateText(entries: GateEntry[], color = false, all = false): string {
  const verdict = gateVerdict(entries);
  const width = Math.max(...entries.map((e) => oneLine(e.id).length), 8);
  const out = [`perf gate: ${VERDICT_WORD[verdict]} — ${headline(entries)}`, ...budgetLines(gateBudgets(entries), color)];
  for (const e of entries) {
    out.push(`  ${statusWord(e).padEnd(7)} ${oneLine(e.id).padEnd(width)}  ${oneLine(entryDetail(e))}`);
    // A pass says what it was decided on (★ as in the compare table); a table follows any other verdict.
    if (e.outcome.status === 'compared' && statusWord(e) === 'PASS') out.push(decidedOnLine(e.outcome.comparison, width));
  }
  for (const e of entries) {
    if (e.outcome.status === 'compared' && e.outcome.comparison.verdict !== 'pass' && e.run) {
      out.push('', renderComparison(e.outcome.comparison, e.outcome.baseline, e.run, 'table', color, all).trimEnd());
    }
  }
  // Names, reasons and error messages come from scenarios, pages and apps: one last pass, colours kept.
  return plainText(out.join('\n') + '\n', { sgr: color });
}

const MD_ICON: Record<string, string> = {
  PASS: '✅',
  WARN: '⚠️',
  FAIL: '❌',
  INCONCLUSIVE: '❔',
  MISSING: '❌',
  ERROR: '❌',
  UPDATED: '📝',
};

/** The Markdown for $GITHUB_STEP_SUMMARY / a PR: verdict, one table row per run, then the details of the runs that warned or failed. */
export function renderGateMarkdown(entries: GateEntry[]): string {
  const verdict = gateVerdict(entries);
  const icon = { pass: '✅', warn: '⚠️', fail: '❌', inconclusive: '❔' }[verdict];
  const out = [
    `### ${icon} perf gate: ${VERDICT_WORD[verdict]} — ${mdText(headline(entries))}`,
    ...budgetMarkdown(gateBudgets(entries)),
    '',
    '| run | verdict | detail |',
    '|:--|:--|:--|',
  ];
  for (const e of entries) {
    const w = statusWord(e);
    out.push(`| ${mdCode(e.id, true)} | ${MD_ICON[w] ?? ''} ${w} | ${mdText(entryDetail(e)).replace(/\|/g, '\\|')} |`);
  }
  for (const e of entries) {
    if (e.outcome.status === 'compared' && e.outcome.comparison.verdict !== 'pass' && e.run) {
      out.push('', renderComparison(e.outcome.comparison, e.outcome.baseline, e.run, 'markdown').trimEnd());
    }
  }
  return plainText(out.join('\n') + '\n');
}

/**
 * JUnit for the whole gate: one <testsuite> per run. Compared runs reuse the junit reporter's compare
 * suite (one testcase per gated metric); a missing baseline or a run that could not be judged is a
 * suite with one failing testcase, so the CI UI shows it red rather than nothing.
 */
export function renderGateJunit(entries: GateEntry[]): string {
  // The budgets first, as on the screen: a failing testcase per broken budget, named as perf run names it.
  const suites = entries.flatMap((e) => {
    const budgets = entryBudgets(e);
    return budgets.length ? [budgetSuiteXml({ scenario: e.scenario, budgets }, `${e.id} budgets`)] : [];
  });
  for (const e of entries) {
    const o = e.outcome;
    if (o.status === 'compared' && e.run) {
      const doc = getReporter('junit').renderCompare(o.comparison, { a: o.baseline, b: e.run });
      const suite = doc.match(/ {2}<testsuite[ >][\s\S]*? {2}<\/testsuite>/)?.[0];
      if (suite) {
        suites.push(suite);
        continue;
      }
    }
    const ok = o.status === 'updated' || o.status === 'compared';
    const detail = entryDetail(e);
    const kase = ok
      ? `    <testcase name="baseline" classname="${xmlAttr(`rehearse.${e.scenario}.gate`)}" ` +
        `time="0.000">\n      <system-out>${xmlText(detail)}</system-out>\n    </testcase>`
      : `    <testcase name="baseline" classname="${xmlAttr(`rehearse.${e.scenario}.gate`)}" time="0.000">\n      <failure ` +
        `message="${xmlAttr(detail)}" type="${xmlAttr(o.status)}">${xmlText(detail)}</failure>\n    </testcase>`;
    suites.push(
      `  <testsuite name="${xmlAttr(`${e.id} gate`)}" tests="1" failures="${ok ? 0 : 1}` +
        `" errors="0" skipped="0" time="0.000">\n${kase}\n  </testsuite>`,
    );
  }
  const count = (attr: string): number =>
    suites.reduce((sum, s) => sum + Number(s.match(new RegExp(`^ {2}<testsuite[^>]* ${attr}="(\\d+)"`))?.[1] ?? 0), 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="rehearse gate" tests="${count('tests')}" failures="${count('failures')}" errors="0" skipped="${count('skipped')}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

export function gateJson(entries: GateEntry[]): Record<string, unknown> {
  return {
    verdict: gateVerdict(entries),
    exitCode: gateExitCode(entries),
    budgets: gateBudgets(entries).map(({ budget, run }) => ({ run, ...budget })),
    runs: entries.map((e) => {
      const o = e.outcome;
      return {
        id: e.id,
        scenario: e.scenario,
        variant: e.variant,
        scenarioFile: e.scenarioFile,
        baselineFile: e.baselineFile,
        runFile: e.runFile,
        status: o.status,
        verdict: entryVerdict(e),
        detail: entryDetail(e),
        ...(o.status === 'compared' ? { compare: o.comparison } : {}),
        ...(o.status === 'updated' && o.previous ? { previous: o.previous } : {}),
        ...(o.status === 'error' || o.status === 'invalid-baseline' ? { error: o.error.toJSON() } : {}),
      };
    }),
  };
}

// ─── command ────────────────────────────────────────────────────────────────────────────────────────

export const gateCommand = defineCommand({
  name: 'gate',
  summary:
    'CI gate: run scenarios, compare each with its baseline in baselines/, ' +
    'exit 1 on an error-level regression, a broken budget or a missing baseline',
  usage:
    'gate [SCENARIO.yaml…] [--baselines DIR] [--variant V] [--junit FILE] [--update] ' +
    '[--engine chromium|webkit|firefox] [--repeat N] [--out DIR] [--shard I/N] [--grid URL [--parallel N]]',
  details: [
    'Default scenarios: perf/*.yaml and scenarios/*.yaml, every variant. Baseline of each: <baselines>/<scenario>[-<variant>].json.',
    'A missing baseline fails the gate (never a silent pass); --update (re)writes the ' +
      "baselines from this run, with 2 × the scenario's repeat unless --repeat is given.",
    "Each run's budgets are judged on its medians as perf run judges them and printed first; a broken budget fails " +
      'the gate whatever the compare says (a baseline as bad would pass it), and fails --update too, which still writes the baseline.',
    '--timing defaults to how the baseline was recorded (its timing repeats), else the scenario.',
    'Prints one summary; appends it as Markdown to $GITHUB_STEP_SUMMARY when set; --junit FILE writes JUnit XML.',
    '--shard I/N runs the I-th of N shares (runs sorted by scenario file and variant, dealt round-robin) ' +
      'and writes <out>/gate-shard-I-of-N.json; `perf merge` joins the N into the one summary.',
    '--grid URL runs each browser as a Selenium Grid session (CDP through se:cdp); --parallel N runs up to N ' +
      "scenario/variants at once, each in its own session (refused without a Grid: one machine's shared CPU spoils the timings).",
  ].join('\n'),
  flags: {
    baselines: { type: 'string', value: 'DIR', description: 'Folder of baseline run files. Default baselines' },
    baseline: {
      type: 'string',
      value: 'history[:BRANCH]',
      description:
        'Take each baseline from the history (--history, $PERF_HISTORY, else .perf/history.sqlite) instead of --baselines: ' +
        "the runs at HEAD's merge-base with BRANCH (default: the default branch) on this kind of machine, else the newest " +
        'earlier commit on BRANCH that has runs.',
    },
    variant: { type: 'string', value: 'V', description: 'Run only this variant of the scenarios that declare variants.' },
    engine: {
      type: 'string',
      value: 'chromium|webkit|firefox',
      description:
        'Browser engine of every scenario (overrides browser.engine, as perf run --engine does); a stored baseline ' +
        'measured in another engine is exit 2 naming both (record one per engine with --update and its own --baselines).',
    },
    junit: { type: 'string', value: 'FILE', description: 'Write the gate as JUnit XML to FILE.' },
    update: { type: 'boolean', description: 'Write this run as the new baselines instead of judging it.' },
    ...flagsOf(RUN_OPTIONS, 'repeat', 'warmup', 'timing', 'out'),
    ...flagsOf(STOP_OPTIONS, 'keepGoing'),
    ...ALLOW_OUTSIDE_FLAG,
    var: {
      type: 'multi',
      value: 'NAME=VALUE',
      description: 'Set a scenario var in every scenario, e.g. --var jank=1; a name no scenario knows is exit 2. Repeatable.',
    },
    ...SEQUENTIAL_FLAGS,
    shard: { ...flagsOf(SCALE_OPTIONS, 'shard').shard!, value: 'I/N' },
    ...SCALE_FLAGS,
    parallel: { ...flagsOf(SCALE_OPTIONS, 'parallel').parallel!, value: 'N' },
    reporter: {
      type: 'list',
      value: 'html',
      description:
        'html: also write one HTML report per run beside its run file in --out (<id>-gate.html: ' +
        'the compare with its baseline, or the run report when there is none).',
    },
    quiet: { type: 'boolean', description: 'No progress lines.' },
    ...HISTORY_FLAG,
    ...ALL_FLAG,
    ...JSON_FLAG,
  },
  async run(f, positionals) {
    return runGate(f, positionals);
  },
});

/** `perf gate --update` records baselines with this many times the scenario's repeat (see runGate). */
export const BASELINE_REPEAT_FACTOR = 2;

/**
 * The stored baseline, or undefined when there is none or it is unreadable (judgeEntry reports both after
 * the run). Without --timing / --no-timing, the gate measures the way its baseline was measured: a baseline
 * recorded with timing repeats gets a candidate with them, so its ms are gated instead of falling back.
 */
function readBaseline(file: string): RunFile | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return readRunFile(file);
  } catch {
    return undefined;
  }
}

/** What every run of one gate shares. */
interface GateContext {
  f: FlagValues;
  cwd: string;
  baselinesDir: string;
  update: boolean;
  outDir: string;
  quiet: boolean;
  seq: ReturnType<typeof sequentialFlags>;
  scale: ReturnType<typeof scaleFlags>;
  /** --baseline history: the store baselines come from, and the stored run each entry was judged against. */
  fromHistory?: GateHistory;
  /** --history: HEAD's git facts, read while the gate runs. */
  git?: Promise<GitInfo>;
}

interface GateHistory {
  store: SqlHistoryStore;
  branch?: string;
  project: string;
  baselineRunIds: Map<string, number>;
}

/** `--baseline history[:BRANCH]`, checked and opened before anything runs; undefined without the flag. */
async function openGateHistory(f: FlagValues, update: boolean, cwd: string): Promise<GateHistory | undefined> {
  if (f.baseline === undefined) return undefined;
  const m = /^history(?::(.+))?$/.exec(String(f.baseline));
  if (!m)
    throw new PerfError({
      code: 'invalid_flag',
      message: `gate: --baseline takes history or history:BRANCH, got "${String(f.baseline)}" (baseline files: --baselines DIR)`,
      suggestion: 'perf gate --baseline history:main',
    });
  if (update)
    throw new PerfError({
      code: 'invalid_flag',
      message: 'gate: --update writes baseline files; with --baseline history, record runs with --history instead',
      suggestion: 'perf gate --history (on the default branch), then perf gate --baseline history on branches',
    });
  // Said before the store is opened and anything runs, not at the first scenario's baseline.
  if (m[1]) checkRef(m[1], 'gate --baseline history:BRANCH');
  // Read-only unless the gate also records (--history): taking baselines changes nothing.
  const store = await openStore(historyLocation(f, true)!, cwd, historyLocation(f) === undefined ? 'read' : 'create');
  return { store, ...(m[1] ? { branch: m[1] } : {}), project: projectName(cwd), baselineRunIds: new Map() };
}

/** The gate's run files (and verdicts) into the history when --history asks; the exit code stays the gate's unless it cannot. */
function recordGate(f: FlagValues, entries: GateEntry[], code: number, ctx: GateContext): Promise<number> {
  const items: ToRecord[] = [];
  const verdicts: VerdictToRecord[] = [];
  for (const e of entries) {
    if (!e.run || !e.runFile || e.run.interrupted) continue;
    if (e.outcome.status === 'compared') {
      const baselineRunId = ctx.fromHistory?.baselineRunIds.get(e.id);
      verdicts.push({
        baseline: null,
        candidate: items.length,
        comparison: e.outcome.comparison,
        ...(baselineRunId ? { baselineRunId } : {}),
      });
    }
    items.push({ run: e.run, path: e.runFile });
  }
  return recordAfter(historyLocation(f), items, code, {
    verdicts,
    ...(ctx.fromHistory ? { store: ctx.fromHistory.store } : {}),
    cwd: ctx.cwd,
    quiet: ctx.quiet,
    ...(ctx.git ? { git: ctx.git } : {}),
  });
}

/** The history's baseline of one scenario, said on stderr (which commit, how many repeats). */
async function baselineFromHistory(sc: Scenario, h: GateHistory, cwd: string, quiet: boolean): Promise<HistoryBaseline> {
  const id = `${sc.name}${sc.variant ? `-${sc.variant}` : ''}`;
  const hb = await historyBaseline(h.store, {
    cwd,
    project: h.project,
    scenario: sc.name,
    variant: sc.variant,
    ...(h.branch ? { branch: h.branch } : {}),
  });
  if (hb.status === 'found') {
    h.baselineRunIds.set(id, hb.runIds[0]!);
    if (!quiet)
      info(
        `perf gate: ${id}: baseline from history: commit ${hb.commit.slice(0, 12)} on ${hb.branch}` +
          `${hb.commitsBack ? ` (${hb.commitsBack} commits before the merge-base)` : ' (the merge-base)'}, ` +
          `${hb.runIds.length} run${hb.runIds.length === 1 ? '' : 's'}, ${hb.repeats} repeats`,
      );
  } else if (!quiet) info(`perf gate: ${id}: no baseline in the history: ${hb.why}`);
  return hb;
}

/** One scenario of the gate: run it (to a decision against its stored baseline) and judge it; a PerfError is its entry. */
async function gateOne(sc: Scenario, g: GateContext): Promise<GateEntry | 'interrupted'> {
  const { f, cwd, baselinesDir, update, outDir, quiet, seq, scale } = g;
  try {
    const hb = g.fromHistory ? await baselineFromHistory(sc, g.fromHistory, cwd, quiet) : undefined;
    const baselineFile = hb ? historyBaselineName(hb, g.fromHistory?.branch) : baselinePath(baselinesDir, sc);
    const baseline = hb ? (hb.status === 'found' ? hb.run : undefined) : readBaseline(baselineFile);
    // Timing repeats decide, in the baseline and the candidate alike (issue 56), unless the scenario says timing: false
    // and its baseline has none; a baseline recorded with them is followed whatever the scenario says now.
    const timing =
      (f.timing as boolean | undefined) ??
      (baseline?.repeats.some((r) => r.mode === 'timing' && r.status === 'measured') ? true : interleavedTiming(sc));
    // A baseline is recorded once and compared many times, and a stored baseline cannot grow: twice
    // the minimum gives candidate-only sampling room to decide.
    const repeat = (f.repeat as number | undefined) ?? (update ? sc.repeat * BASELINE_REPEAT_FACTOR : undefined);
    const { run, path, comparison } = await interruptible((signal) =>
      runToDecision(sc, update ? undefined : baseline, {
        label: GATE_LABEL,
        outDir,
        cwd,
        signal,
        ...(repeat !== undefined ? { repeat } : {}),
        ...(f.warmup !== undefined ? { warmup: f.warmup as number } : {}),
        ...(timing !== undefined ? { timing } : {}),
        ...(f.keepGoing === true ? { keepGoing: true } : {}),
        onProgress: progressPrinter(quiet),
        fixed: seq.fixed,
        ...(seq.maxRepeat !== undefined ? { maxRepeat: seq.maxRepeat } : {}),
        ...(seq.budgetMs !== undefined ? { budgetMs: seq.budgetMs } : {}),
        ...scale,
        compare: { files: { a: baselineFile } },
        onLook: lookPrinter(quiet, `${sc.name}${sc.variant ? `-${sc.variant}` : ''}`),
      }),
    );
    if (run.interrupted) return 'interrupted';
    return judgeEntry(sc, run, path, baselinesDir, update, cwd, comparison, hb);
  } catch (e) {
    if (!isPerfError(e)) throw e;
    const id = `${sc.name}${sc.variant ? `-${sc.variant}` : ''}`;
    info(`perf: ${id}: ${e.message}`);
    return {
      id,
      scenario: sc.name,
      variant: sc.variant,
      scenarioFile: relative(cwd, sc.file) || sc.file,
      baselineFile: baselinePath(baselinesDir, sc),
      runFile: null,
      run: null,
      outcome: { status: 'error', error: e },
    };
  }
}

export async function runGate(f: FlagValues, positionals: string[], cwd = process.cwd()): Promise<number> {
  for (const [k, min] of [
    ['repeat', 1],
    ['warmup', 0],
  ] as const) {
    const v = f[k] as number | undefined;
    if (v !== undefined && (!Number.isInteger(v) || v < min))
      throw new PerfError({ code: 'invalid_flag', message: `gate: --${k} must be a whole number >= ${min}, got ${v}` });
  }
  const html = gateReporters(f.reporter as string[] | undefined);
  // Checked before anything is loaded or started: a bad share is a usage error, exit 2.
  const shard = typeof f.shard === 'string' ? parseShard(f.shard) : undefined;
  const files = positionals.length ? positionals : defaultScenarioFiles(cwd);
  if (!files.length)
    throw new PerfError({
      code: 'missing_argument',
      message: `gate: no scenarios: none given and no ${DEFAULT_SCENARIO_DIRS.map((d) => `${d}/*.yaml`).join(' or ')} here`,
      suggestion: 'put the scenarios in perf/, or name them: perf gate perf/home.yaml --baselines baselines/',
    });
  const variant = f.variant as string | undefined;
  checkNameFlag('gate', 'variant', variant);
  const engine = engineFlag(f, 'gate');
  const plan = planGate(files, {
    ...(variant !== undefined ? { variant } : {}),
    ...(engine !== undefined ? { engine } : {}),
    vars: parseVars(f.var as string[] | undefined),
    allowOutside: f.allowOutside === true,
  });
  const scenarios = shard ? selectShard(plan, (sc) => shardKey(relative(cwd, sc.file) || sc.file, sc.variant), shard) : plan;
  const baselinesDir = (f.baselines as string | undefined) ?? 'baselines';
  // Before any browser starts: a baseline that would lie outside its folder stops the gate (exit 2).
  for (const sc of scenarios) baselinePath(baselinesDir, sc);
  refuseSharedBaselines(baselinesDir, plan, cwd);
  const update = f.update === true;
  // --update replaces the baseline whatever it was measured in; a compare needs one engine on both sides.
  if (!update && f.baseline === undefined) refuseOtherEngine(baselinesDir, scenarios, cwd);
  const outDir = (f.out as string | undefined) ?? 'build/perf';
  const quiet = f.quiet === true || f.json === true;

  const seq = sequentialFlags(f, 'gate');
  const scale = scaleFlags(f, 'gate');
  const parallel = (f.parallel as number | undefined) ?? 1;
  if (!Number.isInteger(parallel) || parallel < 1)
    throw new PerfError({ code: 'invalid_flag', message: `gate: --parallel must be a whole number >= 1, got ${parallel}` });
  if (parallel > 1 && scale.grid === undefined && !scenarios.every((sc) => gridUrlOf(sc.browser.endpoint) !== undefined)) {
    throw new PerfError({
      code: 'invalid_flag',
      message:
        `gate: --parallel ${parallel} needs a Selenium Grid (--grid URL): runs in parallel on ` +
        `this one machine would share its CPU, which spoils the timings they are judged on`,
      suggestion:
        'add --grid http://HOST:4444 (each run then gets its own Grid session, on ' +
        'its own node), or split the gate across CI machines with --shard I/N',
    });
  }
  const fromHistory = await openGateHistory(f, update, cwd);
  const git = gitFor(f, cwd);
  const ctx: GateContext = {
    f,
    cwd,
    baselinesDir,
    update,
    outDir,
    quiet,
    seq,
    scale,
    ...(fromHistory ? { fromHistory } : {}),
    ...(git ? { git } : {}),
  };
  try {
    return await gateAll(scenarios, plan, ctx, { shard, html });
  } finally {
    await fromHistory?.store.close();
  }
}

async function gateAll(
  scenarios: Scenario[],
  plan: Scenario[],
  ctx: GateContext,
  opts: { shard: ReturnType<typeof parseShard> | undefined; html: boolean },
): Promise<number> {
  const { f, cwd, outDir, quiet, seq } = ctx;
  const { shard, html } = opts;
  const parallel = (f.parallel as number | undefined) ?? 1;
  // Up to `parallel` runs at once, each in its own browser (a Grid session), taken in the gate's order;
  // the summary keeps that order whatever finishes first.
  const results: (GateEntry | undefined)[] = new Array(scenarios.length);
  let next = 0;
  let interrupted = false;
  const worker = async (): Promise<void> => {
    while (!interrupted && next < scenarios.length) {
      const i = next++;
      const r = await gateOne(scenarios[i]!, ctx);
      if (r === 'interrupted') interrupted = true;
      else results[i] = r;
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, scenarios.length) }, worker));
  if (interrupted) {
    info('interrupted: the gate stops here; no baseline was written for the interrupted run');
    return 130;
  }
  const entries = results.filter((e): e is GateEntry => e !== undefined);

  if (shard) {
    const file = fileInFolder(ensureDir(outDir, 'perf gate --shard'), shardFileName(shard), 'perf gate --shard');
    writeJsonAtomic(file, shardFile(shard, plan, entries, seq.strict));
    if (!quiet)
      info(
        `perf gate: shard ${shard.index}/${shard.count} (${entries.length} of ${plan.length}` +
          ` runs) written to ${relative(cwd, file) || file}; \`perf merge\` joins the shards`,
      );
  }
  if (html) {
    const written = writeGateHtml(entries);
    if (!quiet && written.length) info(`perf gate: reports: ${written.map((w) => relative(cwd, w) || w).join(', ')}`);
  }
  const code = reportGate(entries, {
    json: f.json === true,
    ...(typeof f.junit === 'string' ? { junit: f.junit } : {}),
    strict: seq.strict,
    command: 'perf gate',
    all: f.all === true,
  });
  return recordGate(f, entries, code, ctx);
}

/** The gate's summary (stdout, $GITHUB_STEP_SUMMARY, --junit) and its exit code: one gate's or merged shards'. */
export function reportGate(
  entries: GateEntry[],
  opts: { json: boolean; junit?: string; strict: boolean; command: string; all?: boolean },
): number {
  if (opts.json) printJson(gateJson(entries));
  else printText(renderGateText(entries, process.stdout.isTTY === true, opts.all === true), process.stdout.isTTY === true);
  appendToGithubStepSummary(renderGateMarkdown(entries));
  if (opts.junit !== undefined) {
    ensureDir(dirname(opts.junit), `${opts.command} --junit`);
    writeFileAtomic(opts.junit, renderGateJunit(entries));
  }
  const code = gateExitCode(entries, opts.strict);
  if (!opts.json && gateVerdict(entries) === 'inconclusive') noteInconclusive('perf gate: inconclusive', opts.strict);
  return code;
}

/** `perf gate --reporter`: html is the one report the gate writes per run (its summary has its own Markdown and --junit). */
function gateReporters(names: string[] | undefined): boolean {
  for (const name of names ?? []) {
    if (name !== 'html') {
      getReporter(name); // an unknown name: the registry's error with "did you mean"
      throw new PerfError({
        code: 'invalid_flag',
        message:
          `gate: --reporter ${name}: the gate writes html reports only; its summary ` +
          `is Markdown ($GITHUB_STEP_SUMMARY) and JUnit (--junit FILE)`,
        suggestion: 'perf gate --reporter html',
      });
    }
  }
  return (names ?? []).length > 0;
}

/**
 * One HTML report per run of the gate, beside its run file (`<out>/<id>-gate.html`): the compare with its
 * baseline when it was judged, else the run alone (missing baseline, --update, unmeasured). Returns the
 * paths written. `perf merge` calls it on the merged entries too.
 */
export function writeGateHtml(entries: readonly GateEntry[], indexDir?: string): string[] {
  const written: string[] = [];
  const reports = new Map<GateEntry, string>();
  for (const e of entries) {
    if (!e.run || !e.runFile) continue;
    const out = reportPathFor(e.runFile, getReporter('html'));
    if (e.outcome.status === 'compared')
      written.push(
        writeHtmlCompareReport(
          e.outcome.comparison,
          { run: e.outcome.baseline, file: e.baselineFile },
          { run: e.run, file: e.runFile },
          out,
        ),
      );
    else written.push(writeHtmlRunReport(e.run, e.runFile, out));
    reports.set(e, out);
  }
  // The whole gate on one page (gate.html in the out folder), linking each run's report.
  const dir = indexDir ?? [...reports.values()].map((p) => dirname(p))[0];
  if (dir !== undefined && entries.length > 0) {
    const index = join(dir, 'gate.html');
    const rows = entries.map((e) => ({
      id: e.id,
      verdict: entryVerdict(e),
      word: statusWord(e),
      detail: entryDetail(e),
      ...(reports.has(e) ? { href: relative(dir, reports.get(e)!) } : {}),
    }));
    writeFileAtomic(index, renderGateIndex(gateVerdict([...entries]), headline([...entries]), rows));
    written.unshift(index);
  }
  return written;
}
