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
import type { Page } from '../drivers/cdp/browser.js';
import { cdpPageDriver } from '../drivers/cdp/page-driver.js';
import { WebDriverRepeatBrowser } from './webdriver-browser.js';
import { TerminalRepeatBrowser } from './terminal-browser.js';
import type { RepeatBrowser, RepeatContext } from './repeat-browser.js';
import { SessionHost } from '../engine/host.js';
import { runStep, toErrorInfo, type StepErrorInfo, type StepResult } from '../engine/run-step.js';
import { errorCodeOf, PerfError } from '../errors.js';
import { summarize, median } from '../perf/stats.js';
import { isTimingMetric } from '../perf/metrics.js';
import { BEGIN_TIMEOUT_MS, END_TIMEOUT_MS, beginMeasure, endMeasure, withinMs } from '../perf/measure.js';
import { repeatAttribution } from '../perf/attribution.js';
import { serializeCast, serializeTrace, type ClosedSession, type TerminalCast } from '../perf/state.js';
import type { Budget, Scenario, StepCall } from '../scenario/load.js';
import type { Insight } from '../perf/insights.js';
import { startApp, type AppSpec, type RunningApp } from '../session/app.js';
import { BrowserSession, type RestartMode } from '../session/browser-session.js';
import { GRID_SCHEME, gridUrlOf } from '../session/grid.js';
import { writeJsonAtomic } from '../session/state.js';
import { hideCredentials } from '../url.js';
import { hostInfo, toolVersion } from './env.js';
import { HostSampler } from './host-speed.js';
import { sameNetwork } from '../steps/network.js';
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

/** Apply the scenario's viewport, touch, CPU and network throttling to a fresh page. */
function emulate(page: Page, sc: Scenario): Promise<void> {
  return cdpPageDriver(page).emulateEnvironment({ viewport: sc.viewport, cpuThrottle: sc.cpuThrottle, network: sc.network });
}

/** What the page reports back after emulation: recorded, not assumed. */
async function readBackViewport(page: Page, touchAsked: boolean): Promise<RunEnv['viewport']> {
  const r = await page.evaluate<{ w: number; h: number; dpr: number; touch: boolean; mobile: boolean }>(
    "({ w: innerWidth, h: innerHeight, dpr: devicePixelRatio, touch: navigator.maxTouchPoints > 0, mobile: matchMedia('(pointer: coarse)').matches })",
  );
  return { width: r.w, height: r.h, dpr: r.dpr, mobile: r.mobile, touch: r.touch || touchAsked };
}

/**
 * What the page's Network Information API reports under throttling: Chromium feeds it the emulated
 * conditions (rounded, rtt to 25 ms, downlink to 25 kbit/s; the CDP driver tells every document). Absent where the API is.
 */
async function readBackNetwork(page: Page): Promise<{ page?: { rttMs: number; downlinkKbps: number } }> {
  const r = await page
    .evaluate<{ rtt: number; downlink: number } | null>(
      'navigator.connection ? { rtt: navigator.connection.rtt, downlink: navigator.connection.downlink } : null',
    )
    .catch(() => null);
  return r ? { page: { rttMs: r.rtt, downlinkKbps: Math.round(r.downlink * 1000) } } : {};
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
  let session: BrowserSession | undefined;
  let wd: WebDriverRepeatBrowser | undefined;
  let term: TerminalRepeatBrowser | undefined;
  try {
    const url = app.urlFor(sc.app.path);
    let host: SessionHost;
    let browser: RepeatBrowser;
    let describe: () => Promise<RunEnv>;
    let fallback: () => RunEnv;
    if (sc.app.terminal) {
      host = new SessionHost(undefined, undefined, cwd);
      const t = new TerminalRepeatBrowser(sc.app.terminal, host, sc.secrets);
      term = t;
      browser = t;
      describe = async () => t.env(sc, app);
      fallback = () => t.env(sc, app);
    } else if (sc.browser.driver === 'webdriver') {
      host = new SessionHost(undefined, app.baseUrl, cwd);
      wd = await WebDriverRepeatBrowser.start(sc, host, app.baseUrl);
      browser = wd;
      const w = wd;
      describe = () => w.describeEnv(sc, app, url);
      fallback = () => w.fallbackEnv(sc, app, url);
    } else {
      const s = await BrowserSession.open({
        headless: sc.browser.headless,
        windowSize: { width: sc.viewport.width, height: sc.viewport.height },
        // Back-to-back repeats leave no idle time for a whole spare page: prepare just the context. A
        // browser restart's next browser starts once a measured window has ended (see runRepeat).
        prewarm: mode === 'context' ? 'context' : mode === 'browser' ? 'browser' : 'none',
        ...(grid ? { grid } : sc.browser.endpoint ? { endpoint: sc.browser.endpoint } : {}),
      });
      session = s;
      host = new SessionHost(s, app.baseUrl, cwd);
      browser = cdpRepeatBrowser(s, host, sc);
      describe = () => describeEnv(s, sc, mode, app, url);
      fallback = () => fallbackEnv(s, sc, mode, app, url);
    }
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
      const gridFailure = session?.gridLost() ?? (grid ? gridErrorOf(record) : undefined);
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
    await session?.close().catch(() => undefined);
    await wd?.close().catch(() => undefined);
    await term?.close().catch(() => undefined);
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

export function fallbackEnv(session: BrowserSession | undefined, sc: Scenario, mode: RestartMode, app: RunningApp, url: string): RunEnv {
  return {
    tool: { name: 'rehearse', version: toolVersion() },
    browser: {
      product: session?.browser.version.product ?? 'unknown',
      userAgent: session?.browser.version.userAgent ?? 'unknown',
      headless: sc.browser.headless,
    },
    host: hostInfo(),
    restartMode: mode,
    viewport: sc.viewport,
    cpuThrottle: sc.cpuThrottle,
    app: { kind: app.kind, url },
  };
}

export async function describeEnv(session: BrowserSession, sc: Scenario, mode: RestartMode, app: RunningApp, url: string): Promise<RunEnv> {
  const env = fallbackEnv(session, sc, mode, app, url);
  env.viewport = await readBackViewport(session.page, sc.viewport.touch);
  if (sc.network) {
    // Every clean restart awaited the target's acknowledgement of these (a refusal fails the repeat).
    // What the page reads back is added while no network step has changed them since.
    const { profile, offline, latencyMs, downloadKbps, uploadKbps } = sc.network;
    const same = sameNetwork(cdpPageDriver(session.page).emulation.network?.current(), { offline, latencyMs, downloadKbps, uploadKbps });
    env.network = {
      profile,
      offline,
      latencyMs,
      downloadKbps,
      uploadKbps,
      ...(same && !offline ? await readBackNetwork(session.page) : {}),
    };
  }
  if (session.chrome) env.browser.executablePath = session.chrome.executablePath;
  if (sc.browser.endpoint) env.browser.endpoint = sc.browser.endpoint;
  if (session.options.grid) env.browser.endpoint = hideCredentials(`${GRID_SCHEME}${session.options.grid}`);
  return env;
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

/** The CDP browser: restarts by reload, context or browser within one BrowserSession. */
export function cdpRepeatBrowser(session: BrowserSession, host: SessionHost, sc: Scenario): RepeatBrowser {
  return {
    async open(rc, mark) {
      const prepare = (p: Page): Promise<unknown> => Promise.all([emulate(p, sc), cdpPageDriver(p).installScripts({ future: true })]);
      if (!rc.first && rc.restart !== 'reload') {
        // The new page is created at the app URL, emulated and scripted before its first document:
        // restart and open are one phase here.
        await session.restartOpen(rc.restart, { url: rc.url, prepare });
        await host.page();
      } else {
        let page: Page;
        // A reload restart IS the fresh navigation, on the same page, whose emulation and installed
        // scripts persist: opening the page again would load it twice.
        const reloaded = !rc.first && !session.health();
        if (rc.first && !session.health()) {
          page = session.page;
          // A spare browser waits for the end of a measured window (below): an idle second Chrome
          // during one would be background work.
          if (rc.restart !== 'browser') session.prepareSpare();
        } else {
          // A reload keeps the page and its emulation: a network step of the last repeat must not
          // throttle this one's load (the scenario's own network is put back).
          const net = rc.restart === 'reload' ? session.driver.emulation.network : undefined;
          if (net && !sameNetwork(net.current(), sc.network)) await net.apply(sc.network);
          page = await session.restart(rc.restart, rc.url);
        }
        mark('restart');
        if (!reloaded || cdpPageDriver(page) !== host.lastPage) {
          // In parallel: independent commands, each a round trip; host.page() installs the page runtime
          // before the app's scripts run.
          await Promise.all([emulate(page, sc), host.page()]);
          await page.navigate(rc.url);
        }
      }
    },
    settle: () => session.settle(),
    windowEnded(rc) {
      // The next browser (browser restarts) starts now, beside the report, trace and run-file
      // writing, rather than at the next restart. Not after the last one.
      if (!rc.last && !rc.signal?.aborted) session.prepareSpare();
    },
    async screenshot() {
      if (session.health()) return undefined;
      // 3 s: a screenshot of a live page takes well under that; a hung page must not stall the run.
      return session.driver.capture.screenshot({ format: 'png', timeoutMs: 3000 });
    },
  };
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
