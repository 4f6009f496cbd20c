/**
 * perf leaks: one page, no restart between iterations (memlab's action/back loop). The app and browser
 * start as for perf run (startApp, openArmBrowser: the scenario's driver; setupOnce and browser.storageState
 * as perf run restores them, runner/sign-in.ts), one clean start, `setup`, then
 * GC + heap snapshot "baseline", the steps once, GC + snapshot "first", the steps N−1 more times, GC +
 * snapshot "last"; src/perf/heap/leaks.ts groups what the iterations left alive. The steps must bring the
 * app back to where they started: whatever one iteration leaves open, every next one finds open.
 *
 * A driver with no view of the heap (WebDriver, terminal) runs the same iterations, each in a measured
 * window, and reports the peak RSS of the app's processes after each (process.maxRssBytes, read from
 * /proc by the driver's perf session) instead.
 */
import { join } from 'node:path';
import type { SessionHost } from '../engine/host.js';
import { runStep, type StepErrorInfo } from '../engine/run-step.js';
import { PerfError } from '../errors.js';
import { ensurePrivateDir, fileInFolder } from '../files.js';
import { BEGIN_TIMEOUT_MS, END_TIMEOUT_MS, beginMeasure, endMeasure, withinMs } from '../perf/measure.js';
import { analyzeLeaks } from '../perf/heap/leaks.js';
import { judgeLeaks, judgeRss, resolveThresholds, type LeakThresholds, type LeaksCommon, type LeaksResult } from '../perf/leaks-result.js';
import type { Scenario, StepCall } from '../scenario/load.js';
import { startApp } from '../session/app.js';
import { gridConnector, gridUrlOf } from '../session/grid.js';
import { BrowserSession } from '../drivers/cdp/session.js';
import type { PagePerf } from '../drivers/page-driver.js';
import { openArmBrowser, type ArmBrowser } from './arm-browser.js';
import { appSpec, runFileName } from './records.js';
import { readStateFile, signIn } from './sign-in.js';

export interface LeaksOptions {
  outDir: string;
  /** Overrides the scenario's leaks.iterations. */
  iterations?: number;
  /** Thresholds from a flag or an MCP argument: they override the scenario's leaks: key, which overrides the defaults. */
  thresholds?: Partial<LeakThresholds>;
  cwd?: string;
  signal?: AbortSignal;
  onProgress?: (e: LeaksProgress) => void;
}

export type LeaksProgress =
  | { kind: 'phase'; what: string }
  | { kind: 'iteration'; index: number; total: number }
  | { kind: 'snapshot'; name: SnapshotName; bytes: number; ms: number };

export type SnapshotName = 'baseline' | 'first' | 'last';

/** Run the scenario's steps `iterations` times in one page and judge what they left alive. */
export async function runLeaks(sc: Scenario, opts: LeaksOptions): Promise<LeaksResult> {
  const t0 = performance.now();
  const iterations = opts.iterations ?? sc.leaks.iterations;
  if (!Number.isInteger(iterations) || iterations < 2) {
    throw new PerfError({
      code: 'invalid_flag',
      message: `perf leaks: iterations must be a whole number >= 2 (a first and a last snapshot), got ${iterations}`,
    });
  }
  if (sc.steps.length === 0) {
    throw new PerfError({
      code: 'scenario_invalid',
      message: `perf leaks: ${sc.file} has no steps to repeat`,
      suggestion: 'give the scenario steps that open and close what may leak, ending where they started',
    });
  }
  const snapshotsDir = fileInFolder(opts.outDir, `${runFileName(sc, 'leaks')}-snapshots`, 'perf leaks');
  // The snapshots are secrets in a folder of their own (0700, never a link): one planted there is refused
  // before the app starts, not after the first snapshot; the folder is created once a driver can take one.
  ensurePrivateDir(snapshotsDir, 'perf leaks', { create: false });
  const thresholds = resolveThresholds(opts.thresholds, sc.leaks);
  const common = { scenario: sc.name, variant: sc.variant, iterations, thresholds };
  const ran = await iterate(sc, { ...opts, iterations, snapshotsDir, common, t0 });
  if (ran.kind === 'rss') return ran;
  // After the browser and the app are gone: the analysis has the machine's memory to itself.
  opts.onProgress?.({ kind: 'phase', what: 'analysing the snapshots' });
  const analysis = await analyzeLeaks(ran.files, iterations);
  const judged = judgeLeaks(analysis.groups, thresholds);
  return {
    ...common,
    kind: 'heap',
    verdict: judged.leak ? 'leak' : 'no_leak',
    wallMs: performance.now() - t0,
    snapshotsDir,
    analysis,
    leaking: [...judged.leaking].sort((a, b) => b.retainedBytes - a.retainedBytes),
    leakingRetainedBytes: judged.retainedBytes,
  };
}

type IterateOptions = LeaksOptions & {
  iterations: number;
  snapshotsDir: string;
  common: Omit<LeaksCommon, 'verdict' | 'wallMs'>;
  t0: number;
};

/** Start the app and browser, one clean start, setup, the iterations; everything closed before it returns. */
async function iterate(
  sc: Scenario,
  opts: IterateOptions,
): Promise<{ kind: 'heap'; files: Record<SnapshotName, string> } | Extract<LeaksResult, { kind: 'rss' }>> {
  const cwd = opts.cwd ?? process.cwd();
  // A bad state file is exit 2 before the app starts.
  const fileState = readStateFile(sc, cwd);
  const app = await startApp(appSpec(sc));
  let cdp: Promise<BrowserSession> | undefined;
  let arm: ArmBrowser | undefined;
  try {
    const url = app.urlFor(sc.app.path);
    const cdpSession = (): Promise<BrowserSession> => (cdp ??= openSession(sc));
    arm = await openArmBrowser(sc, { app, url, cwd, restart: sc.browser.restart, cdpSession });
    const base = runFileName(sc, 'leaks');
    const rc = { index: 0, mode: 'timing' as const, warmup: false, restart: sc.browser.restart, url, outDir: opts.outDir, base };
    const onStep = (): void => undefined;
    // As perf run: setupOnce once in a page of its own (over the state file's state), then a clean start restoring what it left.
    const signingIn = sc.setupOnce.length > 0;
    if (signingIn) opts.onProgress?.({ kind: 'phase', what: 'setupOnce (sign in once)' });
    const state = signingIn ? await signIn({ ...arm, sc }, { ...rc, first: true, last: false, onStep }, fileState) : fileState;
    opts.onProgress?.({ kind: 'phase', what: 'clean start' });
    await arm.browser.open({ ...rc, first: !signingIn, last: true, onStep, ...(state ? { state } : {}) }, () => undefined);
    await runSteps(arm.host, sc.setup, 'setup', opts.signal);
    const perf = arm.host.surface() === 'page' ? (await arm.host.page()).perf : undefined;
    if (perf?.heapSnapshot && perf.collectGarbage) return { kind: 'heap', files: await heapIterations(arm.host, sc, { perf, opts }) };
    return await rssIterations(arm.host, sc, opts);
  } finally {
    await arm?.close().catch(() => undefined);
    await (await cdp?.catch(() => undefined))?.close().catch(() => undefined);
    await app.stop().catch(() => undefined);
  }
}

/** The CDP session as perf run opens it (scheduler.ts), without a spare: nothing restarts here. */
function openSession(sc: Scenario): Promise<BrowserSession> {
  const grid = gridUrlOf(sc.browser.endpoint);
  return BrowserSession.open({
    headless: sc.browser.headless,
    windowSize: { width: sc.viewport.width, height: sc.viewport.height },
    prewarm: 'none',
    ...(grid ? { remote: gridConnector(grid) } : sc.browser.endpoint ? { endpoint: sc.browser.endpoint } : {}),
  });
}

/** Baseline, the iterations with a snapshot after the first and the last; the three files. */
async function heapIterations(
  host: SessionHost,
  sc: Scenario,
  { perf, opts }: { perf: PagePerf; opts: IterateOptions },
): Promise<Record<SnapshotName, string>> {
  const at = { perf, opts, iterations: opts.iterations, snapshotsDir: opts.snapshotsDir };
  const snap = async (name: SnapshotName): Promise<string> => {
    const file = join(at.snapshotsDir, `${name}.heapsnapshot`);
    at.opts.onProgress?.({ kind: 'phase', what: `garbage collection and heap snapshot "${name}"` });
    const t = performance.now();
    await at.perf.collectGarbage!();
    const { bytes } = await at.perf.heapSnapshot!(file);
    at.opts.onProgress?.({ kind: 'snapshot', name, bytes, ms: performance.now() - t });
    return file;
  };
  ensurePrivateDir(at.snapshotsDir, 'perf leaks');
  const baseline = await snap('baseline');
  let first = '';
  for (let i = 0; i < at.iterations; i++) {
    at.opts.onProgress?.({ kind: 'iteration', index: i, total: at.iterations });
    await runSteps(host, sc.steps, `iteration ${i + 1}/${at.iterations}`, at.opts.signal);
    if (i === 0) first = await snap('first');
  }
  return { baseline, first, last: await snap('last') };
}

/** Each iteration in a measured window; the peak RSS the driver read from /proc after each. */
async function rssIterations(host: SessionHost, sc: Scenario, opts: IterateOptions): Promise<Extract<LeaksResult, { kind: 'rss' }>> {
  const at = { iterations: opts.iterations, common: opts.common, t0: opts.t0, opts };
  const after: number[] = [];
  const on = host.surface() === 'terminal' ? await host.terminal() : (await host.page()).perf;
  for (let i = 0; i < at.iterations; i++) {
    at.opts.onProgress?.({ kind: 'iteration', index: i, total: at.iterations });
    await withinMs('perf_begin', BEGIN_TIMEOUT_MS, beginMeasure(host, on, { mode: 'timing', phases: false }));
    await runSteps(host, sc.steps, `iteration ${i + 1}/${at.iterations}`, at.opts.signal).catch(async (e: unknown) => {
      await withinMs('perf_end', END_TIMEOUT_MS, endMeasure(host)).catch(() => undefined);
      throw e;
    });
    const { report } = await withinMs('perf_end', END_TIMEOUT_MS, endMeasure(host));
    const rss = report.metrics['process.maxRssBytes'];
    if (rss === undefined) {
      throw new PerfError({
        code: 'unsupported_on_driver',
        message:
          `perf leaks: the ${sc.browser.driver} driver has no heap snapshot and read no process.maxRssBytes ` +
          `(${report.missingReasons.process ?? 'no process of the app to read'})`,
        suggestion: 'run it on Chromium over CDP (browser.driver: cdp), or start the app where perf can read its processes',
      });
    }
    after.push(rss);
  }
  const judged = judgeRss(after, at.common.thresholds);
  return {
    ...at.common,
    kind: 'rss',
    driver: sc.browser.driver,
    verdict: judged.leak ? 'leak' : 'no_leak',
    wallMs: performance.now() - at.t0,
    maxRssAfterEachBytes: after,
    growthPerIterationBytes: judged.growthPerIterationBytes,
    missing: [
      `heap snapshots (none over the ${sc.browser.driver} driver: they are Chromium's, over CDP)`,
      'leak groups, retained sizes and retainer paths',
      'detached DOM',
      'memory.* metrics',
    ],
  };
}

/** Run `calls` in order; the first failed step ends perf leaks (exit 1) naming where. */
async function runSteps(host: SessionHost, calls: readonly StepCall[], where: string, signal: AbortSignal | undefined): Promise<void> {
  for (let i = 0; i < calls.length; i++) {
    if (signal?.aborted) throw new PerfError({ code: 'interrupted', message: `perf leaks: stopped during ${where}` });
    const call = calls[i]!;
    const r = await runStep(host, call.name, call.args, { index: i, validated: true, ...(signal ? { signal } : {}) });
    if (r.status === 'failed') throw stepFailed(where, r.label, r.error);
  }
}

function stepFailed(where: string, label: string, error: StepErrorInfo): PerfError {
  return new PerfError({
    code: 'leaks_iteration_failed',
    message: `perf leaks: ${where}: step ${label} failed: ${error.code}: ${error.message}`,
    ...(error.suggestion ? { suggestion: error.suggestion } : {}),
  });
}
