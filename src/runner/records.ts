/**
 * What a run file is made of, shared by every door that runs repeats (perf run, --against, the gate):
 * the repeat schedule, the summary and budgets, checkpoints, the kept traces, and the not-saved salvage.
 */
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ensurePrivateDir, SECRET_FILE_MODE, writeFileAtomic } from '../files.js';
import { redactSecrets } from '../scenario/redact.js';
import { errorCodeOf, PerfError } from '../errors.js';
import { canProfile } from '../drivers/define.js';
import { getDriver } from '../drivers/registry.js';
import { median } from '../perf/stats.js';
import { summarizeRepeats } from '../perf/repeat-summary.js';
import { keepsBudget } from '../perf/budget-units.js';
import { analysedRepeats, insightBudgetValue, parseInsightKey } from '../perf/insight-budgets.js';
import type { Budget, Scenario } from '../scenario/load.js';
import type { AppSpec } from '../session/app.js';
import { writeJsonAtomic } from '../session/state.js';
import type { BudgetResult, RepeatMode, RepeatRecord, RunEnv, RunFile } from '../perf/run-file.js';

export function runFileName(sc: Pick<Scenario, 'name' | 'variant'>, label: string): string {
  return `${sc.name}${sc.variant ? `-${sc.variant}` : ''}-${label}`;
}

/**
 * Which repeats a run measures: false = attribution repeats only (the profiler on: ms inflated, evidence kept);
 * true = timing repeats with an attribution repeat every other unit; 'only' = timing repeats alone, no evidence
 * (a bisect's midpoints, which only ask which side of a step in milliseconds a commit is on; every run on a
 * driver that records no CPU profile: see schedulePlan).
 */
export type TimingPlan = boolean | 'only';

/**
 * The plan the repeats of these arms follow: `asked`, or timing repeats alone when an arm's driver records no
 * CPU profile (Firefox over BiDi, WebDriver classic, a terminal). There an attribution repeat would record
 * nothing a timing repeat does not (no profile, no trace categories) while its milliseconds were read as
 * inflated: so every repeat is a timing repeat, its ms decide, and the run file's modes say so. Both arms of
 * a compare follow one plan, so a Chromium arm against a Firefox one is profiled in neither.
 */
export function schedulePlan(asked: TimingPlan, arms: readonly { browser: Pick<Scenario['browser'], 'driver'> }[]): TimingPlan {
  return arms.every((sc) => canProfile(getDriver(sc.browser.driver))) ? asked : 'only';
}

/** A warm-up runs what the measured repeats will run: the profiler too, unless none of them profiles. */
export function warmupMode(plan: TimingPlan): RepeatMode {
  return plan === 'only' ? 'timing' : 'attribution';
}

/**
 * The modes of repeat units `from` … `to` − 1. Without timing each unit is one attribution repeat. With
 * timing, T,A,T,T,A,T…: every unit is a timing repeat and an attribution repeat follows every other one,
 * so the timing repeats carry the milliseconds and the attribution ones the evidence (profiles, insights).
 * 'only': T,T,T…. Units continue across calls: a sequential run extends the same pattern.
 */
export function repeatSlots(from: number, to: number, timing: TimingPlan): RepeatMode[] {
  const out: RepeatMode[] = [];
  for (let k = from; k < to; k++) {
    if (!timing) {
      out.push('attribution');
      continue;
    }
    out.push('timing');
    if (timing !== 'only' && k % 2 === 0) out.push('attribution');
  }
  return out;
}

/** The first `repeat` units' modes (see repeatSlots). */
export function repeatSchedule(repeat: number, timing: TimingPlan): RepeatMode[] {
  return repeatSlots(0, repeat, timing);
}

export function appSpec(sc: Scenario): AppSpec {
  if (sc.app.serve !== undefined) return { kind: 'serve', dir: sc.app.serve, ...(sc.app.spa ? { spa: true } : {}) };
  if (sc.app.command !== undefined)
    return {
      kind: 'command',
      command: sc.app.command,
      cwd: sc.app.cwd,
      ...(sc.app.url ? { url: sc.app.url } : {}),
      ...(sc.app.startTimeoutMs !== undefined ? { startTimeoutMs: sc.app.startTimeoutMs } : {}),
    };
  if (sc.app.url !== undefined) return { kind: 'url', url: sc.app.url };
  return { kind: sc.app.terminal ? 'terminal' : 'desktop' };
}

/**
 * Each budget against the run's median, both in the metric's own unit (a unit written with the limit was applied at
 * load); an insight budget against what the analysed repeats' reports say of it (perf/insight-budgets.ts).
 */
export function judgeBudgets(
  budgets: Budget[],
  metrics: Record<string, { median: number }>,
  records: readonly RepeatRecord[],
): BudgetResult[] {
  return budgets.map((b) => {
    const key = parseInsightKey(b.metric);
    const { value, of } = key ? insightBudgetValue(records, key) : { value: metrics[b.metric]?.median ?? null, of: undefined };
    const pass = value !== null && keepsBudget(value, b.op, b.limit);
    return {
      expr: b.expr,
      metric: b.metric,
      op: b.op,
      limit: b.limit,
      ...(b.unit ? { unit: b.unit } : {}),
      value,
      ...(of !== undefined ? { of } : {}),
      pass,
    };
  });
}

// Moved to perf/ so that the history store (which may not import the runner) rebuilds a stored run's summary the same way.
export { summarizeRepeats };

/**
 * A run whose file could not be written (a full or read-only disk): exit 3 with the reason, and what
 * was measured (`salvage`, the run file's content) printed by the CLI on stderr so nothing is lost.
 */
export function notSaved(cause: unknown, stopped: string | undefined, salvage: unknown): PerfError {
  const why = cause instanceof PerfError ? cause.message : String(cause);
  return new PerfError({
    code: 'run_not_saved',
    kind: 'environment',
    message: `${why}${stopped ? `; ${stopped}` : ''}. What was measured follows on stderr as one line of JSON (the run file's content)`,
    suggestion: 'free space or pass --out on another disk, then run again; or save the JSON line from stderr as the run file',
    salvage,
    cause,
  });
}

/** A run that cannot be saved keeps no trace files either: nothing half-written stays behind. */
function isPrivateDir(dir: string): boolean {
  try {
    ensurePrivateDir(dir, 'perf run', { create: false });
    return existsSync(dir);
  } catch {
    return false;
  }
}

export function dropTraces(dir: string): undefined {
  rmSync(dir, { recursive: true, force: true });
  return undefined;
}

/**
 * A run file from its repeats, as `perf run` and each arm of `--against` write it. `finished: false`
 * for a snapshot taken while the run goes on (no insights: they are read off the median attribution repeat).
 */
export function buildRunFile(
  sc: Scenario,
  p: {
    label: string;
    cwd: string;
    startedAt: string;
    finishedAt: string;
    interrupted: boolean;
    env: RunEnv;
    records: RepeatRecord[];
    finished: boolean;
  },
): RunFile {
  const { metrics, timingOnly } = summarizeRepeats(p.records);
  const counted = p.records.filter((r) => !r.warmup);
  return {
    schemaVersion: 1,
    scenario: sc.name,
    variant: sc.variant,
    label: p.label,
    scenarioFile: relative(p.cwd, sc.file) || sc.file,
    startedAt: p.startedAt,
    finishedAt: p.finishedAt,
    interrupted: p.interrupted,
    env: p.env,
    thresholds: sc.thresholds,
    ...(sc.gate ? { gate: sc.gate } : {}),
    summary: {
      repeats: counted.length,
      measured: counted.filter((r) => r.status === 'measured').length,
      refused: counted.filter((r) => r.status === 'refused').length,
      failed: counted.filter((r) => r.status === 'failed').length,
      warmup: p.records.length - counted.length,
      metrics,
      timingOnly,
    },
    budgets: judgeBudgets(sc.budgets, metrics, p.records),
    ...insightsOf(p.finished ? p.records : []),
    repeats: p.records,
  };
}

/**
 * The run file as it stands, marked `complete: false`, written after each repeat: a run killed outright
 * keeps what it measured. Returns why it could not be written (a full disk), for the caller to stop.
 */
export function checkpoint(path: string, run: RunFile, secrets: Scenario['secrets']): PerfError | undefined {
  try {
    const { repeats, ...head } = run;
    writeJsonAtomic(path, redactSecrets({ ...head, complete: false as const, repeats }, secrets));
    return undefined;
  } catch (e) {
    return e instanceof PerfError
      ? e
      : new PerfError({ code: 'write_failed', kind: 'environment', message: `could not write ${path}: ${String(e)}`, cause: e });
  }
}

type Measured = Extract<RepeatRecord, { status: 'measured' }>;

/**
 * The insights of the repeat that has the evidence: the median by durationMs of the attribution repeats, whose
 * profiles name functions; a timing repeat's insights only ask to measure again with attribution. Timing repeats
 * are read only when the run measured no attribution repeat.
 */
export function insightsOf(records: readonly RepeatRecord[]): Pick<RunFile, 'insights' | 'insightsFrom'> {
  const pool = analysedRepeats(records);
  if (pool.length === 0) return { insights: [] };
  const ms = (r: Measured): number => r.report.metrics.durationMs ?? 0;
  const d = median(pool.map(ms));
  const pick = pool.reduce((best, r) => (Math.abs(ms(r) - d) < Math.abs(ms(best) - d) ? r : best));
  return {
    insights: (pick.report.insights as unknown[] | undefined) ?? [],
    insightsFrom: { repeat: pick.index, mode: pick.mode, of: pool.length },
  };
}

/** app.serve on `serveHost` (--serve-host) instead of 127.0.0.1; other apps as they are. */
export function withServeHost(spec: AppSpec, serveHost: string | undefined): AppSpec {
  return serveHost !== undefined && spec.kind === 'serve' ? { ...spec, host: serveHost } : spec;
}

/** A repeat that failed because its Grid session could not be created: that error, to end the run. */
export function gridErrorOf(record: RepeatRecord): PerfError | undefined {
  if (record.status !== 'failed' || record.failure.phase !== 'restart' || !record.failure.error.code.startsWith('grid_')) return undefined;
  const e = record.failure.error;
  return new PerfError({
    code: errorCodeOf(e.code),
    kind: 'environment',
    message: e.message,
    ...(e.suggestion ? { suggestion: e.suggestion } : {}),
  });
}

/** Move the median and slowest repeats' traces beside the run file; drop the rest. */
export function keepTraces(records: RepeatRecord[], dir: string, outDir: string, base: string): RunFile['traces'] {
  // Only out of the 0700 folder saveRepeatTrace wrote: from a link planted in its place, moving "traces"
  // would carry whatever it leads to into the out folder (rm of the link removes the link alone).
  if (!isPrivateDir(dir)) return dropTraces(dir) ?? {};
  const measured = records.filter((r): r is Extract<RepeatRecord, { status: 'measured' }> => r.status === 'measured' && !r.warmup);
  const out: NonNullable<RunFile['traces']> = {};
  if (measured.length > 0) {
    const dur = (r: (typeof measured)[number]): number => r.report.metrics.durationMs ?? 0;
    const sorted = [...measured].sort((a, b) => dur(a) - dur(b));
    const picks = { median: sorted[Math.floor((sorted.length - 1) / 2)]!, slowest: sorted[sorted.length - 1]! };
    for (const [which, rec] of Object.entries(picks) as ['median' | 'slowest', (typeof measured)[number]][]) {
      // A terminal's repeat left a recording: it keeps its asciicast extension (perf replay, asciinema play).
      const cast = existsSync(join(dir, `repeat${rec.index}.cast`));
      const target = join(outDir, cast ? `${base}-${which}.cast` : `${base}-${which}.trace.json`);
      try {
        const src = join(dir, `repeat${rec.index}.${cast ? 'cast' : 'json'}`);
        // Median and slowest may be the same repeat (one or two measured): copy, then move (a secret either way:
        // the rename keeps the 0600 it was written with, and replaces a link at the target rather than follow it).
        if (which === 'median' && picks.slowest.index === rec.index) writeFileAtomic(target, readFileSync(src), { mode: SECRET_FILE_MODE });
        else renameSync(src, target);
        out[which] = { repeat: rec.index, path: target };
      } catch {
        /* no trace for that repeat */
      }
    }
  }
  rmSync(dir, { recursive: true, force: true });
  return out;
}
