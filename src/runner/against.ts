/**
 * `perf run CANDIDATE.yaml --against BASELINE.yaml`: the same scenario pointed at two builds, measured in
 * the same rounds. Both apps start; one browser serves both arms (same process, same GPU state, same
 * thermal history); the repeats interleave A B | B A | A B | B A … so a slow drift of the machine
 * (thermal throttling, a background job ramping up) adds the same amount to both arms instead of
 * masquerading as a regression. Each arm gets its own run file, exactly as `perf run` writes it, plus
 * the interleaving record (`repeats[].sequence`, `repeats[].startedAt`, `against`).
 */
import { relative } from 'node:path';
import { SessionHost } from '../engine/host.js';
import { PerfError } from '../errors.js';
import type { Scenario } from '../scenario/load.js';
import { startApp, type RunningApp } from '../session/app.js';
import { gridUrlOf } from '../session/grid.js';
import { BrowserSession, type RestartMode } from '../session/browser-session.js';
import { writeJsonAtomic } from '../session/state.js';
import type { RepeatMode, RepeatRecord, RunEnv, RunFile } from '../perf/run-file.js';
import {
  appSpec,
  withServeHost,
  buildRunFile,
  checkpoint,
  describeEnv,
  fallbackEnv,
  gridErrorOf,
  notSaved,
  repeatSchedule,
  repeatSlots,
  runFileName,
  runRepeat,
} from './run.js';
import { redactSecrets } from '../scenario/redact.js';
import { ensureDir, fileInFolder } from '../files.js';

export type Arm = 'baseline' | 'candidate';

export interface AgainstOptions {
  /** Run-file labels of the two arms; default `baseline` / `candidate`. */
  labels?: { baseline: string; candidate: string };
  outDir: string;
  /** Selenium Grid base URL (--grid): both arms in one Grid session; overrides browser.endpoint. */
  grid?: string;
  /** Address app.serve listens on instead of 127.0.0.1 (--serve-host). */
  serveHost?: string;
  repeat?: number;
  warmup?: number;
  restart?: RestartMode;
  timing?: boolean;
  cwd?: string;
  signal?: AbortSignal;
  onProgress?: (e: AgainstProgress) => void;
  /**
   * Called after the scheduled rounds with both runs so far: return how many more repeat units per arm
   * to run, interleaved as before (0 stops). A sequential compare samples until it is decided.
   */
  extend?: (baseline: RunFile, candidate: RunFile) => number | Promise<number>;
}

export type AgainstProgress =
  | { kind: 'start'; total: number; perArm: number; warmup: number }
  | { kind: 'repeat-start'; sequence: number; total: number; arm: Arm; index: number; mode: RepeatMode; warmup: boolean }
  | { kind: 'repeat-end'; sequence: number; total: number; arm: Arm; record: RepeatRecord };

/** Labels of an --against run: `baseline`/`candidate`, or `<label>-baseline`/`<label>-candidate`. */
export function againstLabels(label?: string): { baseline: string; candidate: string } {
  return label ? { baseline: `${label}-baseline`, candidate: `${label}-candidate` } : { baseline: 'baseline', candidate: 'candidate' };
}

/**
 * The interleaved order for `slots` schedule positions: slot k runs both arms, baseline first when k is
 * even, candidate first when odd — A B B A A B B A … Over any two consecutive slots each arm holds one
 * early and one late position, so a linear drift cancels exactly in the per-arm means (and nearly in
 * the medians); an odd count leaves one A B slot whose bias is one step of drift.
 */
export function abbaOrder(slots: number): { slot: number; arm: Arm }[] {
  const out: { slot: number; arm: Arm }[] = [];
  for (let k = 0; k < slots; k++) {
    const pair: Arm[] = k % 2 === 0 ? ['baseline', 'candidate'] : ['candidate', 'baseline'];
    for (const arm of pair) out.push({ slot: k, arm });
  }
  return out;
}

interface ArmState {
  arm: Arm;
  sc: Scenario;
  label: string;
  restart: RestartMode;
  base: string;
  path: string;
  app: RunningApp;
  url: string;
  host: SessionHost;
  records: RepeatRecord[];
  env?: RunEnv;
  startedAt: string;
}

export interface AgainstResult {
  baseline: { run: RunFile; path: string };
  candidate: { run: RunFile; path: string };
}

/** Run both arms interleaved and write one run file each. */
export async function runAgainst(baseline: Scenario, candidate: Scenario, opts: AgainstOptions): Promise<AgainstResult> {
  const cwd = opts.cwd ?? process.cwd();
  const labels = opts.labels ?? againstLabels();
  if (labels.baseline === labels.candidate && runFileName(baseline, '') === runFileName(candidate, '')) {
    throw new PerfError({
      code: 'invalid_flag',
      message: `run --against: both arms would write ${runFileName(candidate, labels.candidate)}.json`,
      suggestion: 'give the arms different labels',
    });
  }
  // Checked on the resolved paths before any browser starts: both run files stay in --out.
  const fileOf = (sc: Scenario, label: string): string => fileInFolder(opts.outDir, `${runFileName(sc, label)}.json`, 'perf run --against');
  const paths = { baseline: fileOf(baseline, labels.baseline), candidate: fileOf(candidate, labels.candidate) };
  // Both arms share one Chromium over CDP: a scenario on another driver would be measured on the wrong
  // browser without a word, so it is refused before anything starts.
  for (const sc of [baseline, candidate]) {
    const webdriver = sc.browser.driver === 'webdriver' ? 'WebDriver (WebKit, chromedriver or a desktop app)' : undefined;
    const other = sc.app.terminal ? 'a terminal program' : webdriver;
    if (other) {
      throw new PerfError({
        code: 'invalid_flag',
        message: `run --against: ${sc.file} runs on ${other}, but --against runs both arms in one Chromium over CDP`,
        suggestion:
          'run each arm with `perf run --label …` and judge the two run files with `perf compare`, or gate against a stored baseline with `perf gate`',
      });
    }
  }
  // One schedule for both arms, from the candidate (the scenario named on the command line).
  const repeat = opts.repeat ?? candidate.repeat;
  const warmup = opts.warmup ?? candidate.warmup;
  const timing = opts.timing ?? candidate.timing;
  const schedule: { mode: RepeatMode; warmup: boolean }[] = [
    ...Array.from({ length: warmup }, () => ({ mode: 'attribution' as RepeatMode, warmup: true })),
    ...repeatSchedule(repeat, timing).map((m) => ({ mode: m, warmup: false })),
  ];
  const restartOf = (sc: Scenario): RestartMode => opts.restart ?? sc.browser.restart;
  const endpoint = candidate.browser.endpoint;
  // Both arms share one browser, so one Grid session: the same node for baseline and candidate.
  const grid = opts.grid ?? gridUrlOf(endpoint);
  for (const sc of [baseline, candidate]) {
    if (endpoint && !grid && restartOf(sc) === 'browser') {
      throw new PerfError({
        code: 'restart_browser_attached',
        message: 'restart mode "browser" cannot be used with browser.endpoint (perf did not launch that Chrome)',
        suggestion: 'use --restart context',
      });
    }
  }
  ensureDir(opts.outDir, 'perf run --against');

  const arms: ArmState[] = [];
  let session: BrowserSession | undefined;
  let interrupted = false;
  // Set when a checkpoint could not be written (a full disk): the compare stops there.
  let unsaved: PerfError | undefined;
  try {
    session = await BrowserSession.open({
      headless: candidate.browser.headless,
      windowSize: { width: candidate.viewport.width, height: candidate.viewport.height },
      prewarm: restartOf(baseline) === 'context' || restartOf(candidate) === 'context' ? 'context' : 'none',
      ...(grid ? { grid } : endpoint ? { endpoint } : {}),
    });
    for (const [arm, sc] of [
      ['baseline', baseline],
      ['candidate', candidate],
    ] as const) {
      const app = await startApp(withServeHost(appSpec(sc), opts.serveHost));
      const label = labels[arm];
      const base = runFileName(sc, label);
      const host = new SessionHost(session, app.baseUrl, cwd);
      arms.push({
        arm,
        sc,
        label,
        restart: restartOf(sc),
        base,
        path: paths[arm],
        app,
        url: app.urlFor(sc.app.path),
        host,
        records: [],
        startedAt: new Date().toISOString(),
      });
    }
    const byArm = (arm: Arm): ArmState => arms.find((a) => a.arm === arm)!;

    let order = abbaOrder(schedule.length);
    let units = repeat;
    opts.onProgress?.({ kind: 'start', total: order.length, perArm: schedule.length, warmup });
    let first = true;
    for (let seq = 0; ; seq++) {
      if (seq >= order.length) {
        // Both arms finished the scheduled rounds: ask whether to sample more (a sequential compare).
        if (interrupted || !opts.extend) break;
        for (const a of arms) a.env ??= fallbackEnv(session, a.sc, a.restart, a.app, a.url);
        const snapshot = (arm: Arm): RunFile =>
          assemble(byArm(arm), {
            cwd,
            finishedAt: new Date().toISOString(),
            interrupted: false,
            env: byArm(arm).env!,
            other: '',
            partial: true,
          });
        const more = await opts.extend(snapshot('baseline'), snapshot('candidate'));
        if (!(more > 0) || opts.signal?.aborted) break;
        schedule.push(...repeatSlots(units, units + more, timing).map((m) => ({ mode: m, warmup: false })));
        units += more;
        // The interleaving goes on where it stopped: slot k is A B when k is even, B A when odd.
        order = abbaOrder(schedule.length);
      }
      if (opts.signal?.aborted) {
        interrupted = true;
        break;
      }
      const { slot, arm } = order[seq]!;
      const a = byArm(arm);
      const { mode, warmup: isWarmup } = schedule[slot]!;
      opts.onProgress?.({ kind: 'repeat-start', sequence: seq, total: order.length, arm, index: slot, mode, warmup: isWarmup });
      const startedAt = new Date().toISOString();
      const record = await runRepeat(session, a.host, a.sc, {
        index: slot,
        mode,
        warmup: isWarmup,
        restart: a.restart,
        url: a.url,
        outDir: opts.outDir,
        base: a.base,
        first,
        ...(opts.signal ? { signal: opts.signal } : {}),
        onStep: () => undefined,
      });
      first = false;
      // A lost Grid session ends the compare (exit 3): a new one might land on another node.
      const gridFailure = session.gridLost() ?? (grid ? gridErrorOf(record) : undefined);
      if (gridFailure) throw gridFailure;
      if (opts.signal?.aborted && record.status !== 'measured') {
        interrupted = true;
        break;
      }
      // The page still shows this arm's app: read its viewport back now, as perf run does.
      if (!a.env && record.status !== 'failed') a.env = await describeEnv(session, a.sc, a.restart, a.app, a.url).catch(() => undefined);
      const kept: RepeatRecord = { ...record, startedAt, sequence: seq };
      a.records.push(kept);
      if (a.env)
        unsaved = checkpoint(
          a.path,
          assemble(a, {
            cwd,
            finishedAt: new Date().toISOString(),
            interrupted,
            env: a.env,
            other: relative(opts.outDir, arms.find((x) => x !== a)!.path),
            partial: true,
          }),
          a.sc.secrets,
        );
      opts.onProgress?.({ kind: 'repeat-end', sequence: seq, total: order.length, arm, record: kept });
      if (opts.signal?.aborted) interrupted = true;
      // A full disk: every later repeat would be measured for nothing (as perf run).
      if (unsaved) break;
    }
    for (const a of arms) a.env ??= fallbackEnv(session, a.sc, a.restart, a.app, a.url);
  } finally {
    await session?.close().catch(() => undefined);
    for (const a of arms) await a.app.stop().catch(() => undefined);
  }

  const finishedAt = new Date().toISOString();
  const files = Object.fromEntries(arms.map((a) => [a.arm, a.path])) as Record<Arm, string>;
  const out = {} as AgainstResult;
  for (const a of arms) {
    const other: Arm = a.arm === 'baseline' ? 'candidate' : 'baseline';
    out[a.arm] = {
      run: redactSecrets(
        assemble(a, { cwd, finishedAt, interrupted, env: a.env!, other: relative(opts.outDir, files[other]) || files[other] }),
        a.sc.secrets,
      ),
      path: a.path,
    };
  }
  try {
    if (unsaved) throw unsaved;
    for (const a of arms) writeJsonAtomic(a.path, out[a.arm].run);
  } catch (e) {
    const done = arms.reduce((n, a) => n + a.records.length, 0);
    throw notSaved(e, unsaved ? `the compare stopped after ${done} repeat${done === 1 ? '' : 's'}` : undefined, {
      baseline: out.baseline.run,
      candidate: out.candidate.run,
    });
  }
  return out;
}

/** The run file of one arm: what `perf run` writes, plus `against`. */
function assemble(
  a: ArmState,
  p: { cwd: string; finishedAt: string; interrupted: boolean; env: RunEnv; other: string; partial?: boolean },
): RunFile {
  return {
    ...buildRunFile(a.sc, {
      label: a.label,
      cwd: p.cwd,
      startedAt: a.startedAt,
      finishedAt: p.finishedAt,
      interrupted: p.interrupted,
      env: p.env,
      records: a.records,
      finished: p.partial !== true,
    }),
    against: { role: a.arm, other: p.other, order: 'ABBA' },
  };
}
