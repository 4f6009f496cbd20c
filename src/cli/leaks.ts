/** perf leaks: run a scenario's steps N times in one page and name what they leave alive (issue 30). */
import { relative } from 'node:path';
import { PerfError } from '../errors.js';
import { fileInFolder, writeFileAtomic } from '../files.js';
import { BUDGET_UNITS, isBudgetUnit, toMetricUnit } from '../perf/budget-units.js';
import { leaksJson, type LeakThresholds, type LeaksResult } from '../perf/leaks-result.js';
import { runLeaks, type LeaksProgress } from '../runner/leaks.js';
import { runFileName } from '../runner/records.js';
import { loadScenario } from '../scenario/load.js';
import { renderLeaksHtml, renderLeaksMarkdown, renderLeaksText } from '../../reporters/leaks.js';
import { appendToGithubStepSummary } from '../../reporters/index.js';
import { ALLOW_OUTSIDE_FLAG, defineCommand, info, JSON_FLAG, printJson, printText } from './command.js';
import { checkNameFlag, interruptible, parseVars } from './run-options.js';
import { STORAGE_STATE_FLAG, withStorageStateFlag } from './state.js';

const LEAK_REPORTERS = { markdown: 'md', html: 'html' } as const;
type LeakReporter = keyof typeof LEAK_REPORTERS;

/** "100KB", "1.5 MB", "204800" (bytes) → bytes; KB and MB binary, as budgets read them (budget-units.ts). */
export function parseSize(flag: string, text: string): number {
  const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*$/.exec(text);
  const unit = m?.[2] || 'B';
  if (!m || !isBudgetUnit(unit) || BUDGET_UNITS[unit].kind !== 'bytes') {
    throw new PerfError({
      code: 'invalid_flag',
      message: `leaks: --${flag} takes a size such as 100KB, 2MB or 204800 (bytes), got "${text}"`,
      suggestion: 'units: B, KB, KiB, MB, MiB (KB = 1024 bytes)',
    });
  }
  return toMetricUnit(Number(m[1]), unit);
}

/** The thresholds the flags set; the ones left out come from the scenario's leaks: key, else the defaults (runner). */
function thresholdsOf(f: Record<string, unknown>): Partial<LeakThresholds> {
  const per = f.minPerIteration as number | undefined;
  if (per !== undefined && !(per > 0))
    throw new PerfError({ code: 'invalid_flag', message: `leaks: --min-per-iteration must be > 0, got ${per}` });
  return {
    ...(per !== undefined ? { minPerIteration: per } : {}),
    ...(f.minRetained !== undefined ? { minRetainedBytes: parseSize('min-retained', String(f.minRetained)) } : {}),
  };
}

function reportersOf(list: string[] | undefined): LeakReporter[] {
  return (list ?? []).map((r) => {
    if (r in LEAK_REPORTERS) return r as LeakReporter;
    throw new PerfError({
      code: 'unknown_reporter',
      message: `leaks: unknown reporter "${r}"`,
      suggestion: `perf leaks writes ${Object.keys(LEAK_REPORTERS).join(' and ')} (the table is printed, --json prints JSON)`,
    });
  });
}

/** One stderr line per phase, iteration and snapshot. */
function progress(quiet: boolean): (e: LeaksProgress) => void {
  if (quiet) return () => undefined;
  return (e) => {
    switch (e.kind) {
      case 'phase':
        return info(`leaks: ${e.what}`);
      case 'iteration':
        return info(`leaks: iteration ${e.index + 1}/${e.total}`);
      case 'snapshot':
        return info(`leaks: snapshot "${e.name}": ${(e.bytes / 2 ** 20).toFixed(1)} MB in ${(e.ms / 1000).toFixed(1)} s`);
    }
  };
}

function writeReports(r: LeaksResult, out: string, base: string, names: LeakReporter[]): string[] {
  return names.map((name) => {
    const file = fileInFolder(out, `${base}.${LEAK_REPORTERS[name]}`, 'perf leaks');
    writeFileAtomic(file, name === 'html' ? renderLeaksHtml(r) : renderLeaksMarkdown(r));
    if (name === 'markdown') appendToGithubStepSummary(renderLeaksMarkdown(r));
    return file;
  });
}

export const leaksCommand = defineCommand({
  name: 'leaks',
  summary: 'Run the steps N times in one page and name the objects each iteration leaves alive (heap snapshots)',
  usage:
    'leaks SCENARIO.yaml [--variant NAME] [--var N=V] [--iterations N] [--min-per-iteration N] [--min-retained SIZE] [--json] ' +
    '[--storage-state FILE] [--out DIR] [--reporter markdown|html]',
  details:
    'setupOnce (if any) signs in once first, as in perf run; the clean start restores what it left.\n' +
    'One clean start and setup, then a GC and heap snapshot (baseline), the steps once (snapshot first), N-1 more times\n' +
    '(snapshot last). The steps must bring the app back to where they started. Snapshots stay in\n' +
    '<out>/<scenario>[-<variant>]-leaks-snapshots/. Exit 1 when a leak over the threshold is found.\n' +
    'WebDriver, Firefox (BiDi) and terminal apps have no heap snapshot: their peak RSS per iteration is reported instead.',
  flags: {
    variant: { type: 'string', value: 'NAME', description: 'Variant to run (required when the scenario declares variants).' },
    var: { type: 'multi', value: 'NAME=VALUE', description: 'Set a scenario var (overrides vars:). Repeatable.' },
    iterations: {
      type: 'number',
      value: 'N',
      description: 'Times the steps run in one page (overrides leaks.iterations; default 8; >= 2).',
    },
    minPerIteration: {
      type: 'number',
      value: 'N',
      description: 'A group leaks when it grows by at least N per iteration (overrides leaks.minPerIteration). Default 1.',
    },
    minRetained: {
      type: 'string',
      value: 'SIZE',
      description: '…and the leaking groups retain at least SIZE in all (overrides leaks.minRetainedBytes). Default 100KB.',
    },
    out: { type: 'string', value: 'DIR', description: 'Output folder for the snapshots and reports. Default build/perf.' },
    reporter: { type: 'list', value: 'NAME', description: 'Also write a report beside the snapshots: markdown, html.' },
    ...STORAGE_STATE_FLAG,
    quiet: { type: 'boolean', description: 'No progress lines.' },
    ...ALLOW_OUTSIDE_FLAG,
    ...JSON_FLAG,
  },
  async run(f, positionals) {
    if (positionals.length !== 1)
      throw new PerfError({
        code: 'missing_argument',
        message: positionals.length === 0 ? 'leaks: which scenario? e.g. perf leaks scenarios/list.yaml' : 'leaks: one scenario at a time',
        suggestion: 'perf leaks SCENARIO.yaml',
      });
    checkNameFlag('leaks', 'variant', f.variant as string | undefined);
    const iterations = f.iterations as number | undefined;
    if (iterations !== undefined && (!Number.isInteger(iterations) || iterations < 2 || iterations > 1000))
      throw new PerfError({
        code: 'invalid_flag',
        message: `leaks: --iterations must be a whole number from 2 to 1000, got ${iterations}`,
      });
    const thresholds = thresholdsOf(f);
    const reporters = reportersOf(f.reporter as string[] | undefined);
    const loaded = loadScenario(positionals[0]!, {
      ...(f.variant !== undefined ? { variant: f.variant as string } : {}),
      vars: parseVars(f.var as string[] | undefined),
      allowOutside: f.allowOutside === true,
    });
    const sc = withStorageStateFlag(loaded, f.storageState);
    const out = (f.out as string | undefined) ?? 'build/perf';
    const result = await interruptible((signal) =>
      runLeaks(sc, {
        outDir: out,
        thresholds,
        signal,
        ...(iterations !== undefined ? { iterations } : {}),
        onProgress: progress(f.quiet === true || f.json === true),
      }),
    );
    const written = writeReports(result, out, runFileName(sc, 'leaks'), reporters);
    const shown = written.map((w) => relative(process.cwd(), w) || w);
    if (f.json) printJson({ ...leaksJson(result), ...(shown.length ? { reports: shown } : {}) });
    else {
      printText(renderLeaksText(result, { color: process.stdout.isTTY === true }) + '\n', process.stdout.isTTY === true);
      if (shown.length) info(`reports: ${shown.join(', ')}`);
    }
    return result.verdict === 'leak' ? 1 : 0;
  },
});
