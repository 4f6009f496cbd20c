/**
 * The first stage of a comparison: whether two runs can be compared at all (same scenario and variant unless forced,
 * a measured repeat in each), what a reader must know about how they differ (env, left-out repeats, thresholds), and
 * who they are (identity blocks). Pure: run files in, warnings and records out; refusals are PerfError usage.
 */
import { PerfError } from '../../errors.js';
import type { RunFile } from '../run-file.js';
import { counted, measuredRepeats } from './samples.js';
import type { CompareRunsOptions, RunIdentity, ThresholdsUsed } from './types.js';

export function identity(run: RunFile, file: string | undefined): RunIdentity {
  const all = counted(run);
  const measured = measuredRepeats(all);
  return {
    file: file ?? null,
    scenario: run.scenario,
    variant: run.variant ?? null,
    label: run.label,
    startedAt: run.startedAt,
    measured: measured.length,
    refused: all.filter((r) => r.status === 'refused').length,
    failed: all.filter((r) => r.status === 'failed').length,
    timingRepeats: measured.filter((r) => r.mode === 'timing').length,
  };
}

export function runName(run: Pick<RunFile, 'scenario' | 'variant'>): string {
  return `${run.scenario}${run.variant ? ` (${run.variant})` : ''}`;
}

/** What identifies the kind of machine a run was measured on: its host-dependent metrics are comparable only within one. */
export function hostKey(env: RunFile['env'] | undefined): string {
  if (!env?.host) return 'unknown host';
  return `${env.host.cpuModel} ×${env.host.cpus}, ${env.host.platform}/${env.host.arch}, ${env.browser?.product ?? 'unknown browser'}`;
}

/**
 * Whether two runs can be compared (same scenario and variant unless forced, a measured repeat in each;
 * PerfError usage otherwise), the warnings about what they hold, and the thresholds to judge with.
 */
export function preflight(
  a: RunFile,
  b: RunFile,
  files: { a: string; b: string },
  opts: CompareRunsOptions,
): { warnings: string[]; thresholds: ReturnType<typeof normalizeThresholds> } {
  const warnings: string[] = [];

  if (a.scenario !== b.scenario || (a.variant ?? null) !== (b.variant ?? null)) {
    const what = `${files.a} is ${runName(a)} but ${files.b} is ${runName(b)}`;
    if (!opts.force) {
      throw new PerfError({
        kind: 'usage',
        code: 'runs_not_comparable',
        message: `compare: different scenarios or variants: ${what}`,
        suggestion: 'compare two runs of the same scenario and variant, or pass --force to compare them anyway',
      });
    }
    warnings.push(`forced: ${what}`);
  }

  for (const [run, file] of [
    [a, files.a],
    [b, files.b],
  ] as const) {
    if (measuredRepeats(counted(run)).length === 0) {
      const all = counted(run);
      throw new PerfError({
        kind: 'usage',
        code: 'run_file_unmeasured',
        message:
          `${file}: no measured repeat to compare (${all.length} counted: ` +
          `${all.filter((r) => r.status === 'refused').length} refused, ${all.filter((r) => r.status === 'failed').length} failed)`,
        suggestion: 'fix the failing step or the refusal shown by `perf run`, then run again',
      });
    }
  }

  warnings.push(...envWarnings(a, b));
  for (const [run, file] of [
    [a, files.a],
    [b, files.b],
  ] as const) {
    const id = identity(run, undefined);
    if (id.refused || id.failed)
      warnings.push(
        `${file}: ${id.refused} refused and ${id.failed} failed repeat(s) left out; ${id.measured} measured repeat(s) compared`,
      );
    if (run.interrupted) warnings.push(`${file}: the run was interrupted; partial results`);
    if (run.complete === false)
      warnings.push(`${file}: the run did not finish (killed after ${run.repeats.length} repeat(s)); judged on what it holds`);
  }

  const thresholds = opts.thresholds ?? normalizeThresholds(b.thresholds);
  if (
    !opts.thresholds &&
    a.thresholds &&
    b.thresholds &&
    JSON.stringify(normalizeThresholds(a.thresholds)) !== JSON.stringify(thresholds)
  ) {
    warnings.push(
      `the runs were made with different thresholds; using the candidate's (warn +${thresholds.warnPct}%, error +${thresholds.errorPct}%)`,
    );
  }
  return { warnings, thresholds };
}

export function normalizeThresholds(t: RunFile['thresholds'] | undefined): ThresholdsUsed {
  return { warnPct: t?.warnPct ?? 10, errorPct: t?.errorPct ?? 25, metrics: { ...(t?.metrics ?? {}) } };
}

/** Differences in how the two runs were made: each makes deltas harder to read, none blocks the compare. */
export function envWarnings(a: RunFile, b: RunFile): string[] {
  const out: string[] = [];
  const ea = a.env;
  const eb = b.env;
  const diff = (what: string, x: unknown, y: unknown): void => {
    if (JSON.stringify(x) !== JSON.stringify(y)) out.push(`${what} differs: ${fmt(x)} (baseline) vs ${fmt(y)} (candidate)`);
  };
  diff('browser version', ea?.browser?.product, eb?.browser?.product);
  diff('browser headless mode', ea?.browser?.headless, eb?.browser?.headless);
  diff(
    'host CPU',
    ea?.host ? `${ea.host.cpuModel} ×${ea.host.cpus}` : undefined,
    eb?.host ? `${eb.host.cpuModel} ×${eb.host.cpus}` : undefined,
  );
  diff(
    'host platform',
    ea?.host ? `${ea.host.platform}/${ea.host.arch}` : undefined,
    eb?.host ? `${eb.host.platform}/${eb.host.arch}` : undefined,
  );
  diff('CPU throttling', ea?.cpuThrottle, eb?.cpuThrottle);
  diff('network throttling', ea && networkFact(ea.network), eb && networkFact(eb.network));
  const vp = (e: RunFile['env'] | undefined): string | undefined =>
    e?.viewport
      ? `${e.viewport.width}×${e.viewport.height}@${e.viewport.dpr}${e.viewport.mobile ? ' mobile' : ''}${e.viewport.touch ? ' touch' : ''}`
      : undefined;
  diff('viewport', vp(ea), vp(eb));
  diff('restart mode', ea?.restartMode, eb?.restartMode);
  return out;
}

function fmt(v: unknown): string {
  return v === undefined ? 'unknown' : typeof v === 'string' ? v : JSON.stringify(v);
}

/** A run's network throttling in a few words: `slow-3g (2000 ms, 400/400 kbit/s)`, or none. */
export function networkFact(n: RunFile['env']['network']): string {
  if (!n) return 'none';
  return n.offline ? `${n.profile} (no connection)` : `${n.profile} (${n.latencyMs} ms, ${n.downloadKbps}/${n.uploadKbps} kbit/s)`;
}
