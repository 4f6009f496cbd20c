/**
 * What perf run, gate, selftest and --against share: flag parsing (labels, vars, sequential
 * options), progress printers, reporters, exit codes and Ctrl-C handling. Its own module so those
 * commands all point down to it instead of at each other.
 */
import { PerfError } from '../errors.js';
import type { ProgressEvent } from '../runner/run.js';
import type { RepeatRecord, RunFile } from '../perf/run-file.js';
import { RESTART_MODES, type RestartMode } from '../drivers/define.js';
import { onShutdown } from '../processes.js';
import { getReporter } from '../../reporters/index.js';
import { reportPathFor } from '../../reporters/define.js';
import { info } from './command.js';
import { flagsOf, type FlagSpecs, type FlagValues } from './args.js';
import { lookVerdictWords, type LookEvent } from '../runner/sequential.js';
import { isNamePart, NAME_PART, writeFileAtomic } from '../files.js';
import { writeHtmlRunReport } from './html-report.js';
import { SEQUENTIAL_OPTIONS } from '../runner/options.js';

/** The browser engines a scenario names (browser.engine), for --engine. */
const ENGINES = ['chromium', 'webkit', 'firefox'] as const;
type Engine = (typeof ENGINES)[number];

/** --engine (perf run, perf gate): one of the engines a scenario may name, else exit 2. */
export function engineFlag(f: FlagValues, command: string): Engine | undefined {
  const engine = f.engine as string | undefined;
  if (engine !== undefined && !(ENGINES as readonly string[]).includes(engine))
    throw new PerfError({
      code: 'invalid_flag',
      message: `${command}: --engine must be one of ${ENGINES.join(', ')}, got "${engine}"`,
      suggestion: 'e.g. --engine firefox',
    });
  return engine as Engine | undefined;
}

/** --label and --variant become parts of file names: anything past NAME_PART is exit 2 naming the flag. */
export function checkNameFlag(command: string, flag: 'label' | 'variant', value: string | undefined): void {
  if (value === undefined || isNamePart(value)) return;
  throw new PerfError({
    code: 'invalid_flag',
    message: `${command}: --${flag} "${value}" may only use ${NAME_PART.allowed} (it becomes part of file names)`,
    suggestion: flag === 'label' ? 'e.g. --label baseline' : 'give one of the variants the scenario declares (perf validate lists them)',
  });
}

/** --var a=1 --var b=x → { a: '1', b: 'x' } */
export function parseVars(list: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0)
      throw new PerfError({ code: 'invalid_flag', message: `--var "${item}": expected NAME=VALUE`, suggestion: 'e.g. --var jank=1' });
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

export function runFlags(f: FlagValues): {
  variant?: string;
  label: string;
  out: string;
  repeat?: number;
  warmup?: number;
  restart?: RestartMode;
  engine?: Engine;
  timing?: boolean;
  keepGoing?: boolean;
  reporters: string[];
} {
  const label = (f.label as string | undefined) ?? 'run';
  checkNameFlag('run', 'label', label);
  checkNameFlag('run', 'variant', f.variant as string | undefined);
  const restart = f.restart as string | undefined;
  if (restart !== undefined && !(RESTART_MODES as readonly string[]).includes(restart)) {
    throw new PerfError({ code: 'invalid_flag', message: `run: --restart must be one of ${RESTART_MODES.join(', ')}, got "${restart}"` });
  }
  const engine = engineFlag(f, 'run');
  for (const [k, min] of [
    ['repeat', 1],
    ['warmup', 0],
  ] as const) {
    const v = f[k] as number | undefined;
    if (v !== undefined && (!Number.isInteger(v) || v < min))
      throw new PerfError({ code: 'invalid_flag', message: `run: --${k} must be a whole number >= ${min}, got ${v}` });
  }
  const reporters = (f.reporter as string[] | undefined) ?? [];
  for (const r of reporters) getReporter(r);
  return {
    ...(f.variant !== undefined ? { variant: f.variant as string } : {}),
    label,
    out: (f.out as string | undefined) ?? 'build/perf',
    ...(f.repeat !== undefined ? { repeat: f.repeat as number } : {}),
    ...(f.warmup !== undefined ? { warmup: f.warmup as number } : {}),
    ...(restart !== undefined ? { restart: restart as RestartMode } : {}),
    ...(engine !== undefined ? { engine } : {}),
    ...(f.timing !== undefined ? { timing: f.timing as boolean } : {}),
    ...(f.keepGoing === true ? { keepGoing: true } : {}),
    reporters,
  };
}

/** The flags of every command that compares as it samples (run --against, gate). */
export const SEQUENTIAL_FLAGS = {
  ...flagsOf(SEQUENTIAL_OPTIONS, 'fixed', 'maxRepeat', 'budgetS'),
  strict: { type: 'boolean', description: 'Exit 1 when the verdict is inconclusive (default: exit 0 and say so).' },
} as const satisfies FlagSpecs;

export interface SequentialFlags {
  fixed: boolean;
  maxRepeat?: number;
  budgetMs?: number;
  strict: boolean;
}

/** Read and check SEQUENTIAL_FLAGS. */
export function sequentialFlags(f: FlagValues, command: string): SequentialFlags {
  const max = f.maxRepeat as number | undefined;
  if (max !== undefined && (!Number.isInteger(max) || max < 1))
    throw new PerfError({ code: 'invalid_flag', message: `${command}: --max-repeat must be a whole number >= 1, got ${max}` });
  const budget = f.budgetS as number | undefined;
  if (budget !== undefined && !(budget > 0))
    throw new PerfError({ code: 'invalid_flag', message: `${command}: --budget-s must be a number of seconds > 0, got ${budget}` });
  if (f.fixed === true && (max !== undefined || budget !== undefined)) {
    throw new PerfError({
      code: 'invalid_flag',
      message: `${command}: --fixed runs exactly --repeat repeats; --max-repeat and --budget-s apply to sequential sampling only`,
      suggestion: 'drop --fixed, or drop --max-repeat / --budget-s',
    });
  }
  return {
    fixed: f.fixed === true,
    ...(max !== undefined ? { maxRepeat: max } : {}),
    ...(budget !== undefined ? { budgetMs: budget * 1000 } : {}),
    strict: f.strict === true,
  };
}

/** One line per look on stderr: the look, the sizes, and why sampling goes on or stops. */
export function lookPrinter(quiet: boolean, name: string): (e: LookEvent) => void {
  if (quiet) return () => undefined;
  return (e) => {
    const tty = process.stderr.isTTY === true;
    info(`${tty ? '\r\x1b[2K' : ''}${name}: look ${e.look} (${e.n.a} vs ${e.n.b} repeats): ${lookVerdictWords(e)} — ${e.why}`);
  };
}

/** One live line on a TTY (repeat i/N, step, elapsed, ETA); one plain line per repeat elsewhere. */
export function progressPrinter(quiet: boolean): (e: ProgressEvent) => void {
  if (quiet) return () => undefined;
  const tty = process.stderr.isTTY === true;
  const t0 = Date.now();
  let total = 0;
  let done = 0;
  let name = '';
  const elapsed = (): string => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
  const eta = (): string => (done === 0 ? '?' : `${Math.max(0, (((Date.now() - t0) / done) * (total - done)) / 1000).toFixed(0)}s`);
  const line = (s: string): void => {
    if (tty) process.stderr.write(`\r\x1b[2K${s.slice(0, (process.stderr.columns ?? 100) - 1)}`);
  };
  return (e) => {
    switch (e.kind) {
      case 'start':
        total = e.total;
        name = e.scenario;
        if (!tty) info(`${name}: ${e.total} repeats (${e.warmup} warmup)`);
        break;
      case 'repeat-start':
        line(`${name} repeat ${e.index + 1}/${e.total}${e.warmup ? ' (warmup)' : ''} ${e.mode} · ${elapsed()} · ETA ${eta()}`);
        break;
      case 'step':
        line(`${name} repeat ${e.index + 1}/${total} · ${e.phase} ${e.label} · ${elapsed()} · ETA ${eta()}`);
        break;
      case 'repeat-end': {
        done++;
        const r = e.record;
        const what = describeRepeat(r);
        if (tty) {
          if (r.status !== 'measured') process.stderr.write(`\r\x1b[2Krepeat ${r.index + 1}/${e.total}: ${what}\n`);
          if (done === e.total) process.stderr.write('\r\x1b[2K');
        } else info(`repeat ${r.index + 1}/${e.total}${r.warmup ? ' (warmup)' : ''} ${r.mode}: ${what} (${(r.wallMs / 1000).toFixed(1)}s)`);
        break;
      }
    }
  };
}

/** Exit 1 when a budget failed, every repeat failed or was refused, or nothing was measured. */
export function writeReporters(run: RunFile, runPath: string, names: string[]): string[] {
  return names.map((name) => {
    const rep = getReporter(name);
    const target = reportPathFor(runPath, rep);
    // The HTML report also shows what lies beside the run file (traces, screenshots): read there.
    if (rep.name === 'html') return writeHtmlRunReport(run, runPath, target);
    // A file is read later and in full: the table file keeps every metric row (what --all prints).
    writeFileAtomic(target, rep.renderRun(run, { all: true }));
    return target;
  });
}

/** Run `start` with a signal that Ctrl-C / SIGTERM trips; shutdown waits until it has written its files. */
export async function interruptible<T>(start: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctl = new AbortController();
  let finished: Promise<unknown> = Promise.resolve();
  const off = onShutdown(async () => {
    ctl.abort();
    await finished;
  });
  try {
    const p = start(ctl.signal);
    finished = p.catch(() => undefined);
    return await p;
  } finally {
    off();
  }
}

/** The run options a command's flags override (only those given). */
export function runOverrides(flags: { repeat?: number; warmup?: number; restart?: RestartMode; timing?: boolean; keepGoing?: boolean }): {
  repeat?: number;
  warmup?: number;
  restart?: RestartMode;
  timing?: boolean;
  keepGoing?: boolean;
} {
  return {
    ...(flags.keepGoing ? { keepGoing: true } : {}),
    ...(flags.repeat !== undefined ? { repeat: flags.repeat } : {}),
    ...(flags.warmup !== undefined ? { warmup: flags.warmup } : {}),
    ...(flags.restart ? { restart: flags.restart } : {}),
    ...(flags.timing !== undefined ? { timing: flags.timing } : {}),
  };
}

/** One repeat's outcome in a progress line. */
export function describeRepeat(r: RepeatRecord): string {
  switch (r.status) {
    case 'measured':
      return (
        `measured ${(r.report.metrics.durationMs ?? 0).toFixed(1)} ms, ` +
        `${r.report.metrics['frames.painted'] ?? r.report.metrics['frames.count'] ?? 0} frames`
      );
    case 'refused':
      return `refused: ${r.reason}`;
    case 'failed':
      return `FAILED at ${r.failure.phase}${r.failure.label ? ` ${r.failure.label}` : ''}: ${r.failure.error.message}`;
  }
}
