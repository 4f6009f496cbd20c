/** perf compare a.json b.json: judge a candidate run file against a baseline run file. */
import { relative } from 'node:path';
import { PerfError } from '../errors.js';
import { oneLine } from '../printable.js';
import { compareExitCode, compareRunFiles, type RunsComparison } from '../perf/compare-runs.js';
import type { RunFile } from '../perf/run-file.js';
import { appendToGithubStepSummary, getReporter } from '../../reporters/index.js';
import { ALL_FLAG, defineCommand, info, JSON_FLAG, printJson, printText } from './command.js';
import { compareReportPath, writeHtmlCompareReport } from './html-report.js';

/** Reporters that can render a compare to stdout (json is --json). */
export const COMPARE_REPORTERS = ['table', 'markdown', 'junit'] as const;

/** The compare as text: the reporter's rendering, then the warnings (env differences, forced compare). */
export function renderComparison(c: RunsComparison, a: RunFile, b: RunFile, reporter: string, color = false, all = false): string {
  const text = getReporter(reporter).renderCompare(c, { a, b }, { color, all });
  if (reporter === 'junit' || c.warnings.length === 0) return text;
  // The first screen gives the warnings one line; --all (and markdown, read in a PR) one line each.
  if (reporter === 'table' && !all) return `${text.replace(/\n*$/, '\n')}  warning: ${c.warnings.map((w) => oneLine(w)).join(' · ')}\n`;
  const bullet = reporter === 'markdown' ? '- ⚠️ ' : '  warning: ';
  // The warnings quote the run files (browser, host): each on one line, without escape sequences.
  return `${text.replace(/\n*$/, '\n')}${reporter === 'markdown' ? '\n' : ''}${c.warnings.map((w) => bullet + oneLine(w)).join('\n')}\n`;
}

/** The one stderr line an inconclusive verdict gets, saying what --strict would change. */
export function noteInconclusive(line: string, strict: boolean): void {
  info(`${line}${strict ? '' : ' (exit 0; --strict makes this exit 1)'}`);
}

export const compareCommand = defineCommand({
  name: 'compare',
  summary: 'Judge a candidate run file against a baseline: noise-aware deltas, exit 1 on an error-level regression',
  usage: 'compare BASELINE.json CANDIDATE.json [--json] [--reporter table|markdown|junit|html [--out FILE.html]] [--force] [--strict]',
  details: [
    "The primary metrics (perf metrics; a scenario's gate.metrics) decide: a regression needs a significant",
    'change (one-sided rank test, Holm over the primary family, sequential boundaries when the runs were',
    'sampled to a decision) whose estimate is past warn (+10%) or error (+25%); thresholds from the',
    "candidate's scenario. A change past warn the samples cannot decide is inconclusive.",
    'Exit 1 on an error-level regression (and on inconclusive with --strict); 2 for unreadable, invalid or',
    'unmeasured files, or runs of different scenarios/variants (unless --force).',
  ].join('\n'),
  flags: {
    reporter: {
      type: 'string',
      value: 'NAME',
      description:
        `Output format on stdout: ${COMPARE_REPORTERS.join(', ')}. Default table. html writes ` +
        `a file instead (--out, default <candidate>.compare.html) and prints the table.`,
    },
    out: { type: 'string', value: 'FILE.html', description: 'With --reporter html: where to write the report.' },
    force: { type: 'boolean', description: 'Compare runs of different scenarios or variants anyway (a warning instead of exit 2).' },
    strict: { type: 'boolean', description: 'Exit 1 when the verdict is inconclusive (default: exit 0 and say so).' },
    ...ALL_FLAG,
    ...JSON_FLAG,
  },
  async run(f, positionals) {
    if (positionals.length !== 2) {
      throw new PerfError({
        code: 'missing_argument',
        message: `compare: expected two run files (baseline, candidate), got ${positionals.length}`,
        suggestion: 'perf compare build/perf/list-baseline.json build/perf/list-candidate.json',
      });
    }
    const html = f.reporter === 'html';
    if (f.out !== undefined && !html)
      throw new PerfError({
        code: 'invalid_flag',
        message: 'compare: --out names the file of --reporter html',
        suggestion: 'perf compare A.json B.json --reporter html --out report.html',
      });
    const reporter = html ? 'table' : ((f.reporter as string | undefined) ?? 'table');
    if (!(COMPARE_REPORTERS as readonly string[]).includes(reporter)) {
      getReporter(reporter); // an unknown name: the registry's error with "did you mean"
      throw new PerfError({
        code: 'invalid_flag',
        message: `compare: --reporter ${reporter} does not render a compare to stdout; use ${COMPARE_REPORTERS.join(', ')} or --json`,
      });
    }
    const [fileA, fileB] = positionals as [string, string];
    const { comparison, a, b } = compareRunFiles(fileA, fileB, { force: f.force === true });
    if (html) {
      const written = writeHtmlCompareReport(
        comparison,
        { run: a, file: fileA },
        { run: b, file: fileB },
        (f.out as string | undefined) ?? compareReportPath(fileB),
      );
      if (!f.json) info(`report: ${relative(process.cwd(), written) || written}`);
    }
    if (f.json) {
      printJson(comparison);
    } else {
      const color = reporter === 'table' && process.stdout.isTTY === true;
      printText(renderComparison(comparison, a, b, reporter, color, f.all === true), color);
      if (reporter === 'markdown') appendToGithubStepSummary(renderComparison(comparison, a, b, 'markdown'));
      if (comparison.verdict === 'fail') {
        const worst = comparison.rows.filter(
          (r) => r.gated && (r.verdict === 'regressed' || r.verdict === 'missing') && r.severity === 'error',
        );
        info(
          `perf: regression: ${worst.map((r) => (r.verdict === 'missing' ? `${r.metric} (missing)` : r.metric)).join(', ')}` +
            ` (${relative(process.cwd(), fileB) || fileB} vs ${relative(process.cwd(), fileA) || fileA})`,
        );
      }
    }
    if (comparison.verdict === 'inconclusive' && !f.json)
      noteInconclusive(`perf: inconclusive: ${comparison.gate.summary}`, f.strict === true);
    return compareExitCode(comparison, f.strict === true);
  },
});
