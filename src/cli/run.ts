/** perf run */
import { STORAGE_STATE_FLAG, withStorageStateFlag } from './state.js';
import { relative } from 'node:path';
import { PerfError } from '../errors.js';
import { loadScenario, type Scenario } from '../scenario/load.js';
import { runAndJudge } from '../runner/judge.js';
import type { RunFile } from '../perf/run-file.js';
import { appendToGithubStepSummary, getReporter, REPORTERS } from '../../reporters/index.js';
import { ALL_FLAG, ALLOW_OUTSIDE_FLAG, defineCommand, info, JSON_FLAG, printJson, printText } from './command.js';
import { runAgainstCommand } from './against.js';
import { gitFor, HISTORY_FLAG, historyLocation, recordAfter } from './history.js';
import { RUN_OPTIONS, STOP_OPTIONS } from '../runner/options.js';
import { scaleFlags, SCALE_FLAGS, type ScaleFlags } from './scale-options.js';
import { flagsOf } from './args.js';
import { interruptible, parseVars, progressPrinter, runFlags, runOverrides, SEQUENTIAL_FLAGS, writeReporters } from './run-options.js';

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
    engine: {
      type: 'string',
      value: 'chromium|webkit|firefox',
      description:
        'Browser engine (overrides browser.engine; with --against, both arms): one scenario file runs in each engine, ' +
        'e.g. --engine firefox.',
    },
    ...flagsOf(RUN_OPTIONS, 'timing'),
    ...flagsOf(STOP_OPTIONS, 'keepGoing'),
    ...STORAGE_STATE_FLAG,
    ...SCALE_FLAGS,
    var: {
      type: 'multi',
      value: 'NAME=VALUE',
      description: 'Set a scenario var (overrides vars:), e.g. --var jank=1; a name the scenario does not know is exit 2. Repeatable.',
    },
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
    bisectExit: {
      type: 'boolean',
      description:
        'With --against, for `git bisect run`: exit 0 when the candidate is not worse, 1 when it regressed (error level), 125 when ' +
        'this commit cannot be judged (inconclusive, nothing measured, the app did not start) and 128 on bad input (stops the bisect).',
    },
    reporter: {
      type: 'list',
      value: 'NAME',
      description: `Also write a report beside the run file: ${REPORTERS.map((r) => r.name).join(', ')} (repeatable or comma-separated).`,
    },
    quiet: { type: 'boolean', description: 'No progress lines and no summary table.' },
    ...HISTORY_FLAG,
    ...ALLOW_OUTSIDE_FLAG,
    ...ALL_FLAG,
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
      for (const k of [...Object.keys(SEQUENTIAL_FLAGS), 'bisectExit']) {
        if (f[k] !== undefined)
          throw new PerfError({
            code: 'invalid_flag',
            message: `run: --${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} applies to a compare: use it with --against`,
            suggestion: 'perf run X.yaml --against BASE.yaml',
          });
      }
    }
    const scale = scaleFlags(f, 'run');
    if (f.against !== undefined && f.storageState !== undefined)
      throw new PerfError({
        code: 'invalid_flag',
        message: 'run: --storage-state applies to one scenario; with --against give each scenario browser.storageState',
        suggestion: 'add browser: { storageState: FILE } to both scenarios',
      });
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
        f.bisectExit === true,
      );
    }
    const loaded = loadScenario(positionals[0]!, {
      ...(flags.variant !== undefined ? { variant: flags.variant } : {}),
      ...(flags.engine !== undefined ? { engine: flags.engine } : {}),
      vars: parseVars(f.var as string[] | undefined),
      allowOutside: f.allowOutside === true,
    });
    const sc = withStorageStateFlag(loaded, f.storageState);
    const git = gitFor(f);
    const { run, path, exitCode } = await executeRun(sc, flags, f.quiet === true || f.json === true, scale);
    const written = writeReporters(run, path, flags.reporters);
    const md = flags.reporters.includes('markdown') ? getReporter('markdown') : undefined;
    if (md) appendToGithubStepSummary(md.renderRun(run));
    if (f.json) {
      const { repeats: _omit, ...rest } = run;
      printJson({ ...rest, path, reports: written });
    } else if (!f.quiet) {
      const color = process.stdout.isTTY === true;
      printText(getReporter('table').renderRun(run, { color, all: f.all === true }), color);
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
