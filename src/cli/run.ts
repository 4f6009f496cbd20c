/** perf run | perf validate | perf schema */
import { relative } from 'node:path';
import { PerfError, printable } from '../errors.js';
import { loadScenario, type Scenario } from '../scenario/load.js';
import { scenarioSchema } from '../scenario/schema.js';
import { runAndJudge } from '../runner/judge.js';
import type { RunFile } from '../perf/run-file.js';
import { appendToGithubStepSummary, getReporter, REPORTERS } from '../../reporters/index.js';
import { ALLOW_OUTSIDE_FLAG, defineCommand, info, JSON_FLAG, printJson } from './command.js';
import { runAgainstCommand } from './against.js';
import { gitFor, HISTORY_FLAG, historyLocation, recordAfter } from './history.js';
import { RUN_OPTIONS } from '../runner/options.js';
import { scaleFlags, SCALE_FLAGS, type ScaleFlags } from './scale-options.js';
import {
  flagsOf,
  interruptible,
  parseVars,
  progressPrinter,
  runFlags,
  runOverrides,
  SEQUENTIAL_FLAGS,
  writeReporters,
} from './run-options.js';

export function executeRun(
  sc: Scenario,
  flags: ReturnType<typeof runFlags>,
  quiet: boolean,
  scale: ScaleFlags = {},
): Promise<{ run: RunFile; path: string; exitCode: 0 | 1 }> {
  return interruptible((signal) =>
    runAndJudge({
      kind: 'run',
      scenario: sc,
      options: { label: flags.label, outDir: flags.out, ...runOverrides(flags), ...scale, signal, onProgress: progressPrinter(quiet) },
    }),
  );
}

export const runCommand = defineCommand({
  name: 'run',
  summary: 'Run a scenario many times from clean restarts and write a run file with medians and budgets',
  usage:
    'run SCENARIO.yaml [--variant NAME] [--repeat N] [--label L] [--out DIR] [--reporter table|json|markdown|junit|html] ' +
    '[--against BASELINE.yaml [--fixed | --max-repeat N] [--budget-s S] [--strict]]',
  details:
    'The run file goes to <out>/<scenario>[-<variant>]-<label>.json; reporter files beside it.\nExit ' +
    '1 when a budget fails, every repeat failed or was refused, or nothing was measured.',
  flags: {
    variant: { type: 'string', value: 'NAME', description: 'Variant to run (required when the scenario declares variants).' },
    ...flagsOf(RUN_OPTIONS, 'label', 'out', 'repeat', 'warmup'),
    restart: {
      type: 'string',
      value: 'MODE',
      description: 'Clean restart per repeat: reload | context | browser (overrides browser.restart).',
    },
    ...flagsOf(RUN_OPTIONS, 'timing'),
    ...SCALE_FLAGS,
    var: { type: 'multi', value: 'NAME=VALUE', description: 'Set a scenario var (overrides vars:), e.g. --var jank=1. Repeatable.' },
    against: {
      type: 'string',
      value: 'BASELINE.yaml',
      description:
        'Also run this scenario (the baseline build) in the same rounds, A B B A, each in its own engine (Chromium, ' +
        'WebKit, a desktop app, a terminal program); write one run file each (labels baseline/candidate, ' +
        'or <label>-baseline/-candidate) and print the comparison. Exit 1 on an error-level regression.',
    },
    baselineVar: {
      type: 'multi',
      value: 'NAME=VALUE',
      description: 'With --against: a var for the baseline arm only (after --var), e.g. --var jank=1 --baseline-var jank=0.',
    },
    ...SEQUENTIAL_FLAGS,
    reporter: {
      type: 'list',
      value: 'NAME',
      description: `Also write a report beside the run file: ${REPORTERS.map((r) => r.name).join(', ')} (repeatable or comma-separated).`,
    },
    quiet: { type: 'boolean', description: 'No progress lines and no summary table.' },
    ...HISTORY_FLAG,
    ...ALLOW_OUTSIDE_FLAG,
    ...JSON_FLAG,
  },
  async run(f, positionals) {
    if (positionals.length !== 1) {
      throw new PerfError({
        code: 'missing_argument',
        message:
          positionals.length === 0
            ? 'run: which scenario? e.g. perf run scenarios/list.yaml'
            : `run: one scenario at a time, got ${positionals.length}`,
        suggestion: 'perf run SCENARIO.yaml',
      });
    }
    const flags = runFlags(f);
    if (f.against === undefined) {
      for (const k of Object.keys(SEQUENTIAL_FLAGS)) {
        if (f[k] !== undefined)
          throw new PerfError({
            code: 'invalid_flag',
            message: `run: --${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} applies to a compare: use it with --against`,
            suggestion: 'perf run X.yaml --against BASE.yaml',
          });
      }
    }
    const scale = scaleFlags(f, 'run');
    if (f.against !== undefined) {
      // Each arm in its scenario's engine; on Chromium both share one browser (with --grid, one Grid session, one node).
      return runAgainstCommand(
        f,
        positionals[0]!,
        { ...flags, label: f.label as string | undefined },
        parseVars(f.var as string[] | undefined),
        parseVars(f.baselineVar as string[] | undefined),
        writeReporters,
        scale,
      );
    }
    const sc = loadScenario(positionals[0]!, {
      ...(flags.variant !== undefined ? { variant: flags.variant } : {}),
      vars: parseVars(f.var as string[] | undefined),
      allowOutside: f.allowOutside === true,
    });
    const git = gitFor(f);
    const { run, path, exitCode } = await executeRun(sc, flags, f.quiet === true || f.json === true, scale);
    const written = writeReporters(run, path, flags.reporters);
    const md = flags.reporters.includes('markdown') ? getReporter('markdown') : undefined;
    if (md) appendToGithubStepSummary(md.renderRun(run));
    if (f.json) {
      const { repeats: _omit, ...rest } = run;
      printJson({ ...rest, path, reports: written });
    } else if (!f.quiet) {
      process.stdout.write(getReporter('table').renderRun(run, { color: process.stdout.isTTY === true }) + '\n');
      info(
        `run file: ${relative(process.cwd(), path) || path}` +
          `${written.length ? `; reports: ${written.map((w) => relative(process.cwd(), w)).join(', ')}` : ''}`,
      );
    }
    if (run.interrupted) {
      info('interrupted: the run file holds the repeats measured so far');
      return 130;
    }
    return recordAfter(historyLocation(f), [{ run, path }], exitCode, {
      quiet: f.quiet === true || f.json === true,
      ...(git ? { git } : {}),
    });
  },
});

export const validateCommand = defineCommand({
  name: 'validate',
  summary: 'Check scenario files (every variant) without starting a browser',
  usage: 'validate SCENARIO.yaml [SCENARIO.yaml…]',
  flags: { ...ALLOW_OUTSIDE_FLAG, ...JSON_FLAG },
  async run(f, positionals) {
    if (positionals.length === 0)
      throw new PerfError({
        code: 'missing_argument',
        message: 'validate: which scenario files?',
        suggestion: 'perf validate scenarios/*.yaml',
      });
    const results: { file: string; ok: boolean; variants: string[]; error?: string }[] = [];
    for (const file of positionals) {
      let variants: string[] = [];
      try {
        try {
          loadScenario(file, { allowOutside: f.allowOutside === true });
        } catch (e) {
          if (!(e instanceof PerfError) || e.code !== 'variant_required') throw e;
          // Check every variant: an override may be what breaks.
          variants = e.candidates ?? [];
          for (const v of variants) loadScenario(file, { variant: v, allowOutside: f.allowOutside === true });
        }
        results.push({ file, ok: true, variants });
      } catch (e) {
        if (!(e instanceof PerfError)) throw e;
        results.push({ file, ok: false, variants, error: e.message });
      }
    }
    if (f.json) printJson({ ok: results.every((r) => r.ok), files: results });
    else
      for (const r of results)
        (r.ok ? (s: string) => process.stdout.write(s + '\n') : info)(
          r.ok ? `ok  ${r.file}${r.variants.length ? ` (variants: ${r.variants.join(', ')})` : ''}` : `perf: ${printable(r.error ?? '')}`,
        );
    return results.every((r) => r.ok) ? 0 : 2;
  },
});

export const schemaCommand = defineCommand({
  name: 'schema',
  summary: 'Print the JSON Schema of scenario files (for editors; also committed as scenario.schema.json)',
  usage: 'schema',
  flags: {},
  async run() {
    process.stdout.write(JSON.stringify(scenarioSchema({ forEditors: true }), null, 2) + '\n');
    return 0;
  },
});
