/**
 * perf run: the app starts once; each repeat starts clean (browser.restart), applies the viewport
 * and CPU throttling, opens app.path, runs setup, then perf_begin → steps → perf_end. A failed step
 * fails only its repeat; a crashed renderer or browser is replaced for the next one. Everything
 * measured is written, atomically, even when the run is interrupted.
 */
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { ensureDir, fileInFolder, writeFileAtomic } from '../files.js';
import { redactChunks, redactSecrets, redactText } from '../scenario/redact.js';
import { join, relative } from 'node:path';
import type { RepeatBrowser, RepeatContext } from './repeat-browser.js';
import { cdpRepeatBrowser } from './cdp-browser.js';
import { openRepeatBrowser, type OpenedRepeat } from './open-repeat.js';
// Moved to cdp-browser.ts with the CDP opener; re-exported for the --against loop.
export { describeEnv, fallbackEnv } from './cdp-browser.js';
import { SessionHost } from '../engine/host.js';
import { runStep, toErrorInfo, type StepErrorInfo, type StepResult } from '../engine/run-step.js';
import { PerfError } from '../errors.js';
import { summarize, median } from '../perf/stats.js';
import { isTimingMetric } from '../perf/metrics.js';
import { BEGIN_TIMEOUT_MS, END_TIMEOUT_MS, beginMeasure, endMeasure, withinMs } from '../perf/measure.js';
import { repeatAttribution } from '../perf/attribution.js';
import { serializeCast, serializeTrace, type ClosedSession, type TerminalCast } from '../perf/state.js';
import type { Budget, Scenario, StepCall } from '../scenario/load.js';
import type { Insight } from '../perf/insights.js';
import { startApp, type AppSpec, type RunningApp } from '../session/app.js';
import { BrowserSession, type RestartMode } from '../session/browser-session.js';
import { gridUrlOf } from '../session/grid.js';
import { writeJsonAtomic } from '../session/state.js';
import { HostSampler } from './host-speed.js';
import type { BudgetResult, PerfReportRecord, RepeatMode, RepeatRecord, RepeatStepRecord, RunEnv, RunFile } from '../perf/run-file.js';

export interface RunOptions {
  label: string;
  outDir: string;
  repeat?: number;
  warmup?: number;
  restart?: RestartMode;
  timing?: boolean;
  cwd?: string;
  signal?: AbortSignal;
  /** Selenium Grid base URL (--grid): overrides the scenario's browser.endpoint. */
  grid?: string;
  /** Address app.serve listens on instead of 127.0.0.1 (--serve-host). */
  serveHost?: string;
  onProgress?: (e: ProgressEvent) => void;
  /**
   * Called after the scheduled repeats with the run so far: return how many more repeat units to run
   * (0 stops). A sequential gate uses it to sample until its verdict is decided.
   */
  extend?: (run: RunFile) => number | Promise<number>;
}

export type ProgressEvent =
  | { kind: 'start'; total: number; warmup: number; scenario: string }
  | { kind: 'repeat-start'; index: number; total: number; warmup: boolean; mode: RepeatMode }
  | { kind: 'step'; index: number; phase: 'setup' | 'steps'; label: string }
  | { kind: 'repeat-end'; record: RepeatRecord; total: number };

export function runFileName(sc: Pick<Scenario, 'name' | 'variant'>, label: string): string {
  return `${sc.name}${sc.variant ? `-${sc.variant}` : ''}-${label}`;
}

/**
 * The modes of repeat units `from` … `to` − 1. Without timing each unit is one attribution repeat. With
 * timing, T,A,T,T,A,T…: every unit is a timing repeat and an attribution repeat follows every other one,
 * so the timing repeats carry the milliseconds and the attribution ones the evidence (profiles, insights).
 * Units continue across calls: a sequential run extends the same pattern.
 */
export function repeatSlots(from: number, to: number, timing: boolean): RepeatMode[] {
  const out: RepeatMode[] = [];
  for (let k = from; k < to; k++) {
    if (!timing) {
      out.push('attribution');
      continue;
    }
    out.push('timing');
    if (k % 2 === 0) out.push('attribution');
  }
  return out;
}

/** The first `repeat` units' modes (see repeatSlots). */
export function repeatSchedule(repeat: number, timing: boolean): RepeatMode[] {
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

export function judgeBudgets(budgets: Budget[], metrics: Record<string, { median: number }>): BudgetResult[] {
  return budgets.map((b) => {
    const value = metrics[b.metric]?.median ?? null;
    const pass =
      value !== null &&
      (b.op === '<' ? value < b.limit : b.op === '<=' ? value <= b.limit : b.op === '>' ? value > b.limit : value >= b.limit);
    return { expr: b.expr, metric: b.metric, op: b.op, limit: b.limit, value, pass };
  });
}

/** Summary over measured, non-warmup repeats. With timing repeats present, ms metrics come from them only. */
export function summarizeRepeats(repeats: RepeatRecord[]): { metrics: Record<string, ReturnType<typeof summarize>>; timingOnly: boolean } {
  const measured = repeats.filter((r): r is Extract<RepeatRecord, { status: 'measured' }> => r.status === 'measured' && !r.warmup);
  const timingOnly = measured.some((r) => r.mode === 'timing') && measured.some((r) => r.mode === 'attribution');
  const values = new Map<string, number[]>();
  for (const r of measured) {
    for (const [k, v] of Object.entries(r.report.metrics)) {
      if (!Number.isFinite(v)) continue;
      if (timingOnly && r.mode !== 'timing' && isTimingMetric(k)) continue;
      let arr = values.get(k);
      if (!arr) values.set(k, (arr = []));
      arr.push(v);
    }
  }
  const metrics: Record<string, ReturnType<typeof summarize>> = {};
  for (const k of [...values.keys()].sort()) metrics[k] = summarize(values.get(k)!);
  return { metrics, timingOnly };
}

export async function runScenario(sc: Scenario, opts: RunOptions): Promise<{ run: RunFile; path: string }> {
  const cwd = opts.cwd ?? process.cwd();
  const repeat = opts.repeat ?? sc.repeat;
  const warmup = opts.warmup ?? sc.warmup;
  const mode = opts.restart ?? sc.browser.restart;
  const timing = opts.timing ?? sc.timing;
  const grid = opts.grid ?? gridUrlOf(sc.browser.endpoint);
  if (sc.browser.endpoint && !grid && mode === 'browser') {
    throw new PerfError({
      code: 'restart_browser_attached',
      message: 'restart mode "browser" cannot be used with browser.endpoint (perf did not launch that Chrome)',
      suggestion: 'use --restart context',
    });
  }
  const base = runFileName(sc, opts.label);
  // Checked on the resolved path: the run file and its traces stay in --out whatever the names hold.
  const path = fileInFolder(opts.outDir, `${base}.json`, 'perf run');
  ensureDir(opts.outDir, 'perf run');
  const startedAt = new Date().toISOString();
  const schedule: { mode: RepeatMode; warmup: boolean }[] = [
    ...Array.from({ length: warmup }, () => ({ mode: 'attribution' as RepeatMode, warmup: true })),
    ...repeatSchedule(repeat, timing).map((m) => ({ mode: m, warmup: false })),
  ];
  let units = repeat;
  const records: RepeatRecord[] = [];
  const traceDir = join(opts.outDir, `.${base}-traces`);
  let env: RunEnv | undefined;
  let interrupted = false;
  // Set when a checkpoint could not be written (a full disk): the run stops there, as every later
  // repeat would be measured for nothing.
  let unsaved: PerfError | undefined;
  const assemble = (finished: boolean): RunFile =>
    buildRunFile(sc, {
      label: opts.label,
      cwd,
      startedAt,
      finishedAt: new Date().toISOString(),
      interrupted,
      env: env!,
      records,
      finished,
    });

  const app: RunningApp = await startApp(withServeHost(appSpec(sc), opts.serveHost));
  let opened: OpenedRepeat | undefined;
  try {
    const url = app.urlFor(sc.app.path);
    // The scenario's driver (src/drivers/registry.ts) opens its repeats: a browser session, WebDriver sessions or a program.
    opened = await openRepeatBrowser(sc, app, { cwd, mode, ...(grid ? { grid } : {}) });
    const { host, browser, describe, fallback } = opened;
    opts.onProgress?.({ kind: 'start', total: schedule.length, warmup, scenario: base });

    for (let i = 0; ; i++) {
      if (i >= schedule.length) {
        // The scheduled repeats are done: ask whether to sample more (a sequential gate).
        if (interrupted || !opts.extend) break;
        env ??= await describe().catch(fallback);
        const more = await opts.extend(assemble(false));
        if (!(more > 0) || opts.signal?.aborted) break;
        schedule.push(...repeatSlots(units, units + more, timing).map((m) => ({ mode: m, warmup: false })));
        units += more;
      }
      if (opts.signal?.aborted) {
        interrupted = true;
        break;
      }
      const { mode: repeatMode, warmup: isWarmup } = schedule[i]!;
      opts.onProgress?.({ kind: 'repeat-start', index: i, total: schedule.length, warmup: isWarmup, mode: repeatMode });
      const record = await runRepeatOn(browser, host, sc, {
        index: i,
        mode: repeatMode,
        warmup: isWarmup,
        restart: mode,
        url,
        outDir: opts.outDir,
        base,
        first: i === 0,
        last: i === schedule.length - 1 && !opts.extend,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(isWarmup ? {} : { traceDir }),
        onStep: (phase, label) => opts.onProgress?.({ kind: 'step', index: i, phase, label }),
      });
      if (opts.signal?.aborted && record.status !== 'measured') {
        // Cut short by Ctrl-C: a half repeat is not a failure of the app; keep only what completed.
        interrupted = true;
        break;
      }
      // A Grid session that could not be created or was lost ends the run (exit 3): a new one would run
      // the rest on another node, or not at all.
      const gridFailure = opened.gridLost() ?? (grid ? gridErrorOf(record) : undefined);
      if (gridFailure) throw gridFailure;
      if (!env && record.status !== 'failed') env = await describe().catch(() => undefined);
      records.push(record);
      if (env) unsaved = checkpoint(path, assemble(false), sc.secrets);
      opts.onProgress?.({ kind: 'repeat-end', record, total: schedule.length });
      if (opts.signal?.aborted) interrupted = true;
      if (unsaved) break;
    }
    env ??= await describe().catch(fallback);
  } finally {
    await opened?.close().catch(() => undefined);
    await app.stop().catch(() => undefined);
  }

  const traces = unsaved ? dropTraces(traceDir) : keepTraces(records, traceDir, opts.outDir, base);
  const run: RunFile = { ...assemble(true), ...(traces && Object.keys(traces).length ? { traces } : {}) };
  // Keep `repeats` last in the file, as before: the summary reads first.
  const { repeats, ...head } = run;
  // Values read from the environment are written as ${env.NAME} (redact.ts), in the file and in what callers print.
  const ordered: RunFile = redactSecrets({ ...head, repeats }, sc.secrets);
  try {
    if (unsaved) throw unsaved;
    writeJsonAtomic(path, ordered);
  } catch (e) {
    throw notSaved(e, unsaved ? `the run stopped after ${records.length} of ${schedule.length} repeats` : undefined, ordered);
  }
  return { run: ordered, path };
}

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
function dropTraces(dir: string): undefined {
  rmSync(dir, { recursive: true, force: true });
  return undefined;
}

/**
 * A run file from its repeats, as `perf run` and each arm of `--against` write it. `finished: false`
 * for a snapshot taken while the run goes on (no insights: they are read off the median repeat).
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
    budgets: judgeBudgets(sc.budgets, metrics),
    insights: p.finished ? medianRepeatInsights(p.records) : [],
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

export function medianRepeatInsights(records: RepeatRecord[]): unknown[] {
  const measured = records.filter((r): r is Extract<RepeatRecord, { status: 'measured' }> => r.status === 'measured' && !r.warmup);
  if (measured.length === 0) return [];
  const d = median(measured.map((r) => r.report.metrics.durationMs ?? 0));
  const pick = measured.reduce((best, r) =>
    Math.abs((r.report.metrics.durationMs ?? 0) - d) < Math.abs((best.report.metrics.durationMs ?? 0) - d) ? r : best,
  );
  return (pick.report.insights as unknown[] | undefined) ?? [];
}

/** app.serve on `serveHost` (--serve-host) instead of 127.0.0.1; other apps as they are. */
export function withServeHost(spec: AppSpec, serveHost: string | undefined): AppSpec {
  return serveHost !== undefined && spec.kind === 'serve' ? { ...spec, host: serveHost } : spec;
}

/** A repeat that failed because its Grid session could not be created: that error, to end the run. */
export function gridErrorOf(record: RepeatRecord): PerfError | undefined {
  if (record.status !== 'failed' || record.failure.phase !== 'restart' || !record.failure.error.code.startsWith('grid_')) return undefined;
  const e = record.failure.error;
  return new PerfError({ code: e.code, kind: 'environment', message: e.message, ...(e.suggestion ? { suggestion: e.suggestion } : {}) });
}

export function runRepeat(session: BrowserSession, host: SessionHost, sc: Scenario, rc: RepeatContext): Promise<RepeatRecord> {
  return runRepeatOn(cdpRepeatBrowser(session, host, sc), host, sc, rc);
}

export async function runRepeatOn(browser: RepeatBrowser, host: SessionHost, sc: Scenario, rc: RepeatContext): Promise<RepeatRecord> {
  const t0 = performance.now();
  const hostSampler = new HostSampler();
  const steps: RepeatStepRecord[] = [];
  const phasesMs: NonNullable<RepeatRecord['phasesMs']> = {};
  let lap = t0;
  const mark = (phase: keyof typeof phasesMs): void => {
    const now = performance.now();
    phasesMs[phase] = now - lap;
    lap = now;
  };
  const common = { index: rc.index, mode: rc.mode, warmup: rc.warmup, steps, phasesMs };
  const failed = async (
    phase: 'restart' | 'setup' | 'steps' | 'measure',
    error: StepErrorInfo,
    step?: StepCall,
    label?: string,
  ): Promise<RepeatRecord> => {
    const screenshot = phase === 'restart' ? undefined : await failureScreenshot(browser, rc);
    const hostRecord = hostSampler.finish();
    const where = { phase, ...(step ? { step: step.name } : {}), ...(label ? { label } : {}) };
    const failure = { ...where, error, ...(screenshot ? { screenshot } : {}) };
    return { ...common, ...(hostRecord ? { host: hostRecord } : {}), wallMs: performance.now() - t0, status: 'failed', failure };
  };

  // 1. Clean restart, emulation, the app page.
  try {
    await browser.open(rc, mark);
    // An app answering its start page with an error page is not the app under test: say so instead
    // of measuring the error page (Navigation Timing's responseStatus, Chromium 109+; 0 when unknown).
    const status =
      host.surface() === 'terminal'
        ? 0
        : await (await host.page()).evaluate<number>("performance.getEntriesByType('navigation')[0]?.responseStatus ?? 0").catch(() => 0);
    if (status >= 400) {
      throw new PerfError({
        code: 'app_http_error',
        kind: 'failed',
        message: `the app answered HTTP ${status} for ${rc.url}`,
        suggestion: "check app.path, and the app's output (perf logs, or the run's stderr)",
      });
    }
    mark('open');
  } catch (e) {
    return failed('restart', toErrorInfo(e));
  }

  const run = async (phase: 'setup' | 'steps', call: StepCall, i: number): Promise<StepResult> => {
    rc.onStep(phase, String(call.args.label ?? `${i}-${call.name}`));
    const r = await runStep(host, call.name, call.args, { index: i, validated: true, ...(rc.signal ? { signal: rc.signal } : {}) });
    steps.push({
      phase,
      step: r.step,
      label: r.label,
      status: r.status,
      durationMs: r.durationMs,
      ...(r.status !== 'ok' ? { error: r.error } : {}),
      ...(r.status === 'ok' && r.warnings?.length ? { warnings: r.warnings } : {}),
    });
    return r;
  };

  // 2. Setup: not measured.
  for (let i = 0; i < sc.setup.length; i++) {
    const call = sc.setup[i]!;
    const r = await run('setup', call, i);
    if (r.status === 'failed') return failed('setup', r.error, call, r.label);
  }

  // 3. The measured window. Nothing of ours may run in the background during it.
  await browser.settle();
  mark('setup');
  // Just before the window, after the settle: the host as the measured steps will find it. Its cost is
  // its own phase (`host`), so what it adds to a repeat is on record.
  hostSampler.calibrate();
  mark('host');
  try {
    await withinMs(
      'perf_begin',
      BEGIN_TIMEOUT_MS,
      (host.surface() === 'terminal' ? host.terminal() : host.page().then((page) => page.perf)).then((on) =>
        beginMeasure(host, on, { mode: rc.mode, phases: false }),
      ),
    );
  } catch (e) {
    return failed('measure', toErrorInfo(e));
  }
  mark('begin');
  for (let i = 0; i < sc.steps.length; i++) {
    const call = sc.steps[i]!;
    const r = await run('steps', call, i);
    if (r.status === 'failed') {
      // Close the session so the next repeat starts without a half-open profiler or trace.
      await withinMs('perf_end', END_TIMEOUT_MS, endMeasure(host)).catch(() => undefined);
      return failed('steps', r.error, call, r.label);
    }
  }
  mark('steps');
  const end = await withinMs('perf_end', END_TIMEOUT_MS, endMeasure(host)).then(
    (v) => ({ ok: v }),
    (e: unknown) => ({ error: toErrorInfo(e) }),
  );
  mark('end');
  browser.windowEnded(rc);
  if ('error' in end) return failed('measure', end.error);
  const { report, closed, raw } = end.ok;
  const hostRecord = hostSampler.finish();
  if (rc.traceDir) saveRepeatTrace(closed, rc.traceDir, rc.index, sc.secrets);
  // Where the main thread went, for compare to name the cause of a change: in the run file only, not in
  // perf_end's reply (bounded to 6 KB).
  const attribution = rc.mode === 'attribution' && !report.refused ? repeatAttribution(raw) : undefined;
  const insights = withRows(report.insights, closed.details);
  const record: PerfReportRecord = { ...report, insights, ...(attribution ? { attribution } : {}) };
  const wallMs = performance.now() - t0;
  const measured = { ...common, ...(hostRecord ? { host: hostRecord } : {}), wallMs };
  const reason = report.reason ?? 'the page rendered nothing during the measured window';
  if (report.refused) return { ...measured, status: 'refused', reason, report: record };
  return { ...measured, status: 'measured', report: record };
}

/**
 * Keep this repeat's trace (a page's Chrome trace, a terminal's asciicast recording) on disk until
 * the run knows which repeats are the median and the slowest.
 */
function saveRepeatTrace(closed: ClosedSession, dir: string, index: number, secrets: Scenario['secrets']): void {
  try {
    if (!closed.trace && !closed.cast) return;
    ensureDir(dir, 'perf run');
    // Atomic: a full disk leaves no truncated trace behind.
    if (closed.trace) writeFileAtomic(join(dir, `repeat${index}.json`), redactText(serializeTrace(closed, closed.trace), secrets));
    else if (closed.cast) writeFileAtomic(join(dir, `repeat${index}.cast`), serializeCast(closed, redactCast(closed.cast, secrets)));
  } catch {
    // A trace is evidence, not a result: a repeat without one is still measured.
  }
}

// Ten rows: the worst frames or functions an insight ranks first; the rest is perf_insight's, in a session.
const INSIGHT_ROWS_MAX = 10;

/** Each insight with the first rows behind it, so a report shows them without a session. */
function withRows(
  insights: readonly Insight[],
  details: ClosedSession['details'],
): (Insight & { rows?: Record<string, unknown>[]; rowsTotal?: number })[] {
  return insights.map((i) => {
    const rows = details.get(i.id)?.rows ?? [];
    return rows.length
      ? { ...i, rows: rows.slice(0, INSIGHT_ROWS_MAX), ...(rows.length > INSIGHT_ROWS_MAX ? { rowsTotal: rows.length } : {}) }
      : i;
  });
}

/** A recording with the secrets out of what was typed and of what the program echoed, each as one stream. */
function redactCast(cast: TerminalCast, secrets: Scenario['secrets']): TerminalCast {
  if (secrets.length === 0) return cast;
  const events = cast.events.map((e) => [...e] as typeof e);
  for (const code of ['i', 'o'] as const) {
    const mine = events.filter((e) => e[1] === code);
    redactChunks(
      mine.map((e) => e[2]),
      secrets,
    ).forEach((text, i) => {
      mine[i]![2] = text;
    });
  }
  return { ...cast, events };
}

/** Move the median and slowest repeats' traces beside the run file; drop the rest. */
function keepTraces(records: RepeatRecord[], dir: string, outDir: string, base: string): RunFile['traces'] {
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
        // Median and slowest may be the same repeat (one or two measured): copy, then move.
        if (which === 'median' && picks.slowest.index === rec.index) writeFileAtomic(target, readFileSync(src));
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

async function failureScreenshot(browser: RepeatBrowser, rc: RepeatContext): Promise<string | undefined> {
  try {
    const png = await browser.screenshot();
    if (!png) return undefined;
    const file = join(rc.outDir, `${rc.base}-repeat${rc.index}-failure.png`);
    writeFileAtomic(file, png);
    return file;
  } catch {
    return undefined;
  }
}

export type { RepeatBrowser, RepeatContext };
