/**
 * The one repeat scheduler, for one arm (`perf run`) or two (`--against`, the gate's A/B, MCP perf_run with
 * against): it starts each arm's app and browser (openArmBrowser: the arm's own driver), runs warmups and
 * the timing/attribution slots, interleaves two arms A B | B A | A B …, asks `extend` for more after the
 * scheduled rounds (a sequential compare), stops on the signal, on a lost Grid session (exit 3) and on a
 * checkpoint that could not be written, and writes each arm's run file, or throws it as not-saved salvage.
 */
import { join, relative } from 'node:path';
import { keepGoingAdvice, PerfError } from '../errors.js';
import { ensureDir } from '../files.js';
import type { RepeatMode, RepeatRecord, RunEnv, RunFile } from '../perf/run-file.js';
import { redactSecrets } from '../scenario/redact.js';
import type { Scenario } from '../scenario/load.js';
import { startApp, type RunningApp } from '../session/app.js';
import { BrowserSession, type RestartMode } from '../drivers/cdp/session.js';
import { gridConnector, gridUrlOf } from '../session/grid.js';
import { writeJsonAtomic } from '../session/state.js';
import { openArmBrowser, type ArmBrowser } from './arm-browser.js';
import {
  appSpec,
  buildRunFile,
  checkpoint,
  dropTraces,
  gridErrorOf,
  keepTraces,
  notSaved,
  repeatSchedule,
  repeatSlots,
  type TimingPlan,
  warmupMode,
  withServeHost,
} from './records.js';
import { runRepeatOn } from './repeat.js';
import type { RepeatContext } from './repeat-browser.js';
import { readStateFile, signIn, withStateSecrets } from './sign-in.js';
import type { StorageState } from '../drivers/storage.js';
import { warmEngine } from '../perf/devtools-insights.js';

export type Arm = 'baseline' | 'candidate';

/**
 * The interleaved order for `slots` schedule positions: slot k runs both arms, baseline first when k is
 * even, candidate first when odd — A B B A A B B A … Over any two consecutive slots each arm holds one
 * early and one late position, so a linear drift cancels exactly in the per-arm means (and nearly in
 * the medians); an odd count leaves one A B slot whose bias is one step of drift.
 *
 * `blocks`: the first slot of each block of the schedule (0, then where each sequential look's round begins). Each
 * block restarts the pattern, and the arm that opens it alternates from block to block (counterbalancing across
 * blocks). The first repeat after a look ran slow in CI's Firefox A/A (284–380 ms in 6 of 9 rounds, the others
 * 98–217): with every look's round opening on the candidate, the candidate took that slot every time, and an
 * unchanged build failed at maxRepeat (interactions.latencyMs.p90 +40 %).
 */
export function abbaOrder(slots: number, blocks: readonly number[] = [0]): { slot: number; arm: Arm }[] {
  const out: { slot: number; arm: Arm }[] = [];
  let b = 0;
  for (let k = 0; k < slots; k++) {
    while (b + 1 < blocks.length && blocks[b + 1]! <= k) b++;
    const baselineFirst = ((k - blocks[b]!) % 2 === 0) !== (b % 2 === 1);
    const pair: Arm[] = baselineFirst ? ['baseline', 'candidate'] : ['candidate', 'baseline'];
    for (const arm of pair) out.push({ slot: k, arm });
  }
  return out;
}

/** One arm: its scenario and where its run file goes. Two arms are given baseline first. */
export interface ArmPlan {
  sc: Scenario;
  label: string;
  /** The run file's base name (runFileName) and its checked path in outDir. */
  base: string;
  path: string;
  restart: RestartMode;
  /** The arm's role in a compare (written as `against`); absent for a plain run. */
  role?: Arm;
}

export interface ScheduleOptions {
  arms: ArmPlan[];
  outDir: string;
  cwd: string;
  repeat: number;
  warmup: number;
  /** The timing plan as the arms' drivers allow it, resolved once by the caller (records.ts schedulePlan). */
  plan: TimingPlan;
  /** Selenium Grid base URL (--grid); else the last arm's browser.endpoint when it is a Grid. */
  grid?: string;
  serveHost?: string;
  signal?: AbortSignal;
  /** Keep the median and slowest repeats' traces beside the run file (perf run). */
  keepTraces: boolean;
  /** The command, for messages about --out. */
  who: string;
  /** --keep-going: run on after an arm's first repeat failed the way every repeat would. */
  keepGoing?: boolean;
  onEvent?: (e: ScheduleEvent) => void;
  /** After the scheduled rounds, with every arm's run so far: how many more units per arm (0 stops). */
  extend?: (runs: RunFile[]) => number | Promise<number>;
}

export type ScheduleEvent =
  | { kind: 'start'; total: number; perArm: number; warmup: number }
  | { kind: 'repeat-start'; sequence: number; total: number; arm: number; index: number; mode: RepeatMode; warmup: boolean }
  | { kind: 'step'; sequence: number; arm: number; phase: 'setup' | 'steps'; label: string }
  | { kind: 'repeat-end'; sequence: number; total: number; arm: number; record: RepeatRecord };

interface ArmState extends ArmPlan {
  app: RunningApp;
  url: string;
  browser: ArmBrowser;
  records: RepeatRecord[];
  env?: RunEnv;
  startedAt: string;
  traceDir: string;
  /** browser.storageState (or --storage-state), read before anything starts. */
  fileState?: StorageState;
  /** What every clean restart restores: fileState with setupOnce's state over it; set before the arm's first repeat. */
  state?: StorageState;
  signedIn: boolean;
  /** setupOnce ran again after a failed repeat (an expired sign-in): once per arm, so a failure it does not fix costs one retry. */
  resignedIn: boolean;
}

/** The restart check that needs no browser: a Chrome perf did not launch cannot be restarted. */
function checkRestarts(opts: ScheduleOptions, endpoint: string | undefined, grid: string | undefined): void {
  for (const a of opts.arms) {
    if (endpoint && !grid && a.restart === 'browser') {
      throw new PerfError({
        code: 'restart_browser_attached',
        message: 'restart mode "browser" cannot be used with browser.endpoint (perf did not launch that Chrome)',
        suggestion: 'use --restart context',
      });
    }
  }
}

/** Run the arms' repeats (interleaved when two) and write one run file each, in `opts.arms` order. */
export async function runSchedule(opts: ScheduleOptions): Promise<{ run: RunFile; path: string }[]> {
  const s = new Scheduler(opts);
  checkRestarts(opts, s.sessionScenario.browser.endpoint, s.grid);
  ensureDir(opts.outDir, opts.who);
  try {
    // A load's attribution repeats run DevTools' engine: its import overlaps the app's and the browser's start, and
    // is over before the first window (of any mode) opens, so its CPU is in none.
    const warm = opts.arms.some((a) => a.sc.measure === 'load') ? warmEngine() : undefined;
    await s.open();
    await warm;
    await s.loop();
    for (const a of s.arms) a.env ??= await s.envOf(a);
  } finally {
    await s.close();
  }
  const out = s.write();
  // After the run file is written: the failed repeat is on record, with its screenshot.
  if (s.stopped) throw s.stopped;
  return out;
}

/**
 * Step errors every later repeat would hit the same way: the page has no such element (after the step's own
 * wait), or the step's target or arguments are malformed. A timeout, a failed expect or a stale ref is not here:
 * a page that is merely slow, or still changing, can pass them on the next repeat.
 */
const DETERMINISTIC_FAILURES: ReadonlySet<string> = new Set([
  'target_not_found',
  'invalid_target',
  'ambiguous_target',
  'invalid_arguments',
  'option_not_found',
  'not_checkable',
  'cannot_uncheck_radio',
  'unsupported_on_driver',
]);

/** The error that stops the run after an arm's first repeat failed in a step the way every repeat would; else undefined. */
function deterministicStop(record: RepeatRecord, who: string, runFile: string): PerfError | undefined {
  if (record.status !== 'failed') return undefined;
  const { phase, error } = record.failure;
  if ((phase !== 'setup' && phase !== 'steps') || !DETERMINISTIC_FAILURES.has(error.code)) return undefined;
  const after = record.warmup ? 'the warm-up' : 'the first repeat';
  return stepStop({ who, after, failure: record.failure, how: ', as every repeat would', runFile, fix: 'fix the step' });
}

/** "WHO: stopped after AFTER: the [setup ]step LABEL failed with CODE…: MESSAGE (run file: …)", --keep-going advised. */
function stepStop(s: {
  who: string;
  after: string;
  failure: Extract<RepeatRecord, { status: 'failed' }>['failure'];
  how: string;
  runFile: string;
  fix: string;
}): PerfError {
  const { phase, label, step, error } = s.failure;
  return new PerfError({
    code: 'step_fails_every_repeat',
    message:
      `${s.who}: stopped after ${s.after}: the ${phase === 'setup' ? 'setup ' : ''}step ${label ?? step ?? ''} failed with ` +
      `${error.code}${s.how}: ${error.message} (run file: ${s.runFile})`,
    suggestion: keepGoingAdvice(error.suggestion ?? s.fix),
  });
}

/**
 * The error that stops the run when an arm's first two repeats failed in the same step with the same code: a wait that
 * timed out twice (a text that never appears) would cost its full timeout on every repeat left. Once can be a slow
 * start (the warm-up pays for a cold cache), so one such failure alone never stops the run.
 */
function repeatedStop(records: readonly RepeatRecord[], who: string, runFile: string): PerfError | undefined {
  const [first, second] = records;
  if (records.length !== 2 || first?.status !== 'failed' || second?.status !== 'failed') return undefined;
  const [f, s] = [first.failure, second.failure];
  if (f.phase !== s.phase || f.step !== s.step || f.error.code !== s.error.code) return undefined;
  if (f.phase !== 'setup' && f.phase !== 'steps') return undefined;
  const after = first.warmup ? 'the warm-up and the first repeat' : 'the first two repeats';
  const fix = 'fix the step, or give the wait a longer timeoutMs';
  return stepStop({ who, after, failure: s, how: ' in both, as every repeat left would likely', runFile, fix });
}

class Scheduler {
  readonly arms: ArmState[] = [];
  readonly grid: string | undefined;
  /** The CDP session opens with this scenario's browser options: the candidate's (the one named on the command line). */
  readonly sessionScenario: Scenario;
  private readonly schedule: { mode: RepeatMode; warmup: boolean }[];
  private order: { slot: number; arm: number }[];
  /** Where each block of the schedule starts: 0, then each sequential look's round (abbaOrder). */
  private readonly blocks: number[] = [0];
  private units: number;
  private interrupted = false;
  /** Set when an arm's first repeat failed the way every repeat would (without --keep-going): the run stops there. */
  stopped: PerfError | undefined;
  /** Set when a checkpoint could not be written (a full disk): every later repeat would be measured for nothing. */
  private unsaved: PerfError | undefined;
  private cdp: Promise<BrowserSession> | undefined;
  private readonly apps: RunningApp[] = [];
  private readonly browsers: ArmBrowser[] = [];
  /** Browsers (a shared CDP session counts once) that have opened a repeat: the first one starts on the launched page. */
  private readonly opened = new Set<object>();

  constructor(private readonly opts: ScheduleOptions) {
    this.sessionScenario = opts.arms[opts.arms.length - 1]!.sc;
    this.grid = opts.grid ?? gridUrlOf(this.sessionScenario.browser.endpoint);
    this.schedule = [
      ...Array.from({ length: opts.warmup }, () => ({ mode: warmupMode(opts.plan), warmup: true })),
      ...repeatSchedule(opts.repeat, opts.plan).map((m) => ({ mode: m, warmup: false })),
    ];
    this.units = opts.repeat;
    this.order = this.orderOf(this.schedule.length);
  }

  /** One arm: the schedule in order. Two: ABBA, so drift adds the same to both arms. */
  private orderOf(slots: number): { slot: number; arm: number }[] {
    if (this.opts.arms.length === 1) return Array.from({ length: slots }, (_, slot) => ({ slot, arm: 0 }));
    return abbaOrder(slots, this.blocks).map(({ slot, arm }) => ({ slot, arm: arm === 'baseline' ? 0 : 1 }));
  }

  private cdpSession(): Promise<BrowserSession> {
    const sc = this.sessionScenario;
    const restarts = this.opts.arms.map((a) => a.restart);
    // Back-to-back repeats leave no idle time for a whole spare page: prepare just the context. A browser
    // restart's next browser starts once a measured window has ended (cdpRepeatBrowser); with two arms
    // the spare browser would serve the other arm's repeat, so none is prepared ahead.
    const prewarm = restarts.includes('context') ? 'context' : restarts.length === 1 && restarts[0] === 'browser' ? 'browser' : 'none';
    this.cdp ??= BrowserSession.open({
      headless: sc.browser.headless,
      windowSize: { width: sc.viewport.width, height: sc.viewport.height },
      prewarm,
      ...(this.grid ? { remote: gridConnector(this.grid) } : sc.browser.endpoint ? { endpoint: sc.browser.endpoint } : {}),
    });
    return this.cdp;
  }

  async open(): Promise<void> {
    // Every state file first: a bad one is exit 2 before any app or browser starts.
    const files = this.opts.arms.map((plan) => readStateFile(plan.sc, this.opts.cwd));
    for (const [i, plan] of this.opts.arms.entries()) {
      const app = await startApp(withServeHost(appSpec(plan.sc), this.opts.serveHost));
      this.apps.push(app);
      const url = app.urlFor(plan.sc.app.path);
      const browser = await openArmBrowser(plan.sc, {
        app,
        url,
        cwd: this.opts.cwd,
        restart: plan.restart,
        cdpSession: () => this.cdpSession(),
      });
      this.browsers.push(browser);
      const traceDir = join(this.opts.outDir, `.${plan.base}-traces`);
      const fileState = files[i];
      this.arms.push({
        ...plan,
        ...(fileState ? { sc: withStateSecrets(plan.sc, fileState), fileState } : {}),
        app,
        url,
        browser,
        records: [],
        startedAt: new Date().toISOString(),
        traceDir,
        signedIn: false,
        resignedIn: false,
      });
    }
    const perArm = this.schedule.length;
    this.opts.onEvent?.({ kind: 'start', total: this.order.length, perArm, warmup: this.opts.warmup });
  }

  async close(): Promise<void> {
    const cdp = await this.cdp?.catch(() => undefined);
    await cdp?.close().catch(() => undefined);
    for (const b of this.browsers) await b.close().catch(() => undefined);
    for (const app of this.apps) await app.stop().catch(() => undefined);
  }

  /** A browser both arms share shows the other arm's app between repeats: only what was configured is safe to read then. */
  private shared(a: ArmState): boolean {
    return a.browser.session !== undefined && this.arms.some((x) => x !== a && x.browser.session === a.browser.session);
  }

  envOf(a: ArmState): Promise<RunEnv> {
    return this.shared(a) ? Promise.resolve(a.browser.fallback()) : a.browser.describe().catch(() => a.browser.fallback());
  }

  async loop(): Promise<void> {
    for (let seq = 0; ; seq++) {
      if (seq >= this.order.length && !(await this.extended())) break;
      if (this.opts.signal?.aborted) {
        this.interrupted = true;
        break;
      }
      if (!(await this.runOne(seq))) break;
    }
  }

  /** The scheduled rounds are done: ask whether to sample more (a sequential compare or gate). */
  private async extended(): Promise<boolean> {
    if (this.interrupted || !this.opts.extend) return false;
    for (const a of this.arms) a.env ??= await this.envOf(a);
    const more = await this.opts.extend(this.arms.map((a) => this.file(a, false)));
    if (!(more > 0) || this.opts.signal?.aborted) return false;
    this.blocks.push(this.schedule.length);
    this.schedule.push(...repeatSlots(this.units, this.units + more, this.opts.plan).map((m) => ({ mode: m, warmup: false })));
    this.units += more;
    // A round of its own: A B B A or B A A B, opened by the arm that did not open the last look's round.
    this.order = this.orderOf(this.schedule.length);
    return true;
  }

  /** No later repeat is scheduled on this arm's browser (a shared CDP session counts for both arms). */
  private lastOn(seq: number, key: object): boolean {
    if (this.opts.extend) return false;
    return !this.order.slice(seq + 1).some((o) => this.keyOf(this.arms[o.arm]!) === key);
  }

  private keyOf(a: ArmState): object {
    return a.browser.session ?? a.browser;
  }

  /** One repeat of the order; false when the run stops here. */
  private async runOne(seq: number): Promise<boolean> {
    const { slot, arm } = this.order[seq]!;
    const a = this.arms[arm]!;
    const { mode, warmup } = this.schedule[slot]!;
    const total = this.order.length;
    const signal = this.opts.signal;
    this.opts.onEvent?.({ kind: 'repeat-start', sequence: seq, total, arm, index: slot, mode, warmup });
    const startedAt = new Date().toISOString();
    const rc = (): RepeatContext => this.context(a, seq, slot, mode, warmup);
    if (!a.signedIn) await this.signIn(a, rc);
    let record = await runRepeatOn(a.browser.browser, a.browser.host, a.sc, rc());
    if (this.expired(a, record)) {
      // An expired sign-in: sign in again once, then the repeat's second attempt is the one on record.
      a.resignedIn = true;
      await this.signIn(a, rc);
      record = { ...(await runRepeatOn(a.browser.browser, a.browser.host, a.sc, rc())), retriedAfterSignIn: true };
    }
    if (signal?.aborted && record.status !== 'measured') {
      // Cut short by Ctrl-C: a half repeat is not a failure of the app; keep only what completed.
      this.interrupted = true;
      return false;
    }
    // A Grid session that could not be created or was lost ends the run (exit 3): a new one would run the
    // rest on another node (for a compare: the arms on different nodes), or not at all.
    const gridFailure = a.browser.session?.gridLost() ?? (this.grid ? gridErrorOf(record) : undefined);
    if (gridFailure) throw gridFailure;
    // The browser still shows this arm's app: read its environment back now.
    if (!a.env && record.status !== 'failed') a.env = await a.browser.describe().catch(() => undefined);
    const kept: RepeatRecord = a.role ? { ...record, startedAt, sequence: seq } : record;
    const first = a.records.length === 0;
    a.records.push(kept);
    if (a.env) this.unsaved = checkpoint(a.path, this.file(a, false), a.sc.secrets);
    this.opts.onEvent?.({ kind: 'repeat-end', sequence: seq, total, arm, record: kept });
    if (signal?.aborted) this.interrupted = true;
    if (!this.opts.keepGoing) {
      const runFile = relative(this.opts.cwd, a.path) || a.path;
      this.stopped = first ? deterministicStop(record, this.opts.who, runFile) : repeatedStop(a.records, this.opts.who, runFile);
    }
    return !this.unsaved && !this.stopped;
  }

  /** A repeat's context on arm `a`; the first to open a browser (a shared CDP session counts once) starts on its launched page. */
  private context(a: ArmState, seq: number, slot: number, mode: RepeatMode, warmup: boolean): RepeatContext {
    const key = this.keyOf(a);
    const first = !this.opened.has(key);
    this.opened.add(key);
    const signal = this.opts.signal;
    return {
      index: slot,
      mode,
      warmup,
      restart: a.restart,
      url: a.url,
      outDir: this.opts.outDir,
      base: a.base,
      first,
      last: this.lastOn(seq, key),
      ...(signal ? { signal } : {}),
      ...(this.opts.keepTraces && !warmup ? { traceDir: a.traceDir } : {}),
      ...(a.state ? { state: a.state } : {}),
      onStep: (phase, label) => this.opts.onEvent?.({ kind: 'step', sequence: seq, arm: this.arms.indexOf(a), phase, label }),
    };
  }

  /**
   * The state the arm's repeats restore: the state file's, with setupOnce run over it in a page of
   * its own (the repeats then start clean from it). Its values join the arm's secrets.
   */
  private async signIn(a: ArmState, rc: () => RepeatContext): Promise<void> {
    a.signedIn = true;
    if (a.sc.setupOnce.length === 0) {
      if (a.fileState) a.state = a.fileState;
      return;
    }
    // Without the last state: the state file alone is the base (a stale sign-in is not restored under a new one).
    const { state: _stale, ...clean } = rc();
    a.state = await signIn({ browser: a.browser.browser, host: a.browser.host, sc: a.sc }, { ...clean, last: false }, a.fileState);
    a.sc = withStateSecrets(a.sc, a.state);
  }

  /** A failed repeat that signing in again may fix: the arm has setupOnce and has not signed in again yet. */
  private expired(a: ArmState, record: RepeatRecord): boolean {
    if (record.status !== 'failed' || a.sc.setupOnce.length === 0 || a.resignedIn || this.opts.signal?.aborted) return false;
    return record.failure.phase !== 'measure';
  }

  /** An arm's run file as it stands (`finished: false` for a checkpoint or a look), with `against` in a compare. */
  private file(a: ArmState, finished: boolean, finishedAt = new Date().toISOString()): RunFile {
    const run = buildRunFile(a.sc, {
      label: a.label,
      cwd: this.opts.cwd,
      startedAt: a.startedAt,
      finishedAt,
      interrupted: this.interrupted,
      env: a.env!,
      records: a.records,
      finished,
    });
    const other = this.arms.find((x) => x !== a);
    if (!a.role || !other) return run;
    return { ...run, against: { role: a.role, other: relative(this.opts.outDir, other.path) || other.path, order: 'ABBA' } };
  }

  /** Every arm's final run file, written; not-saved salvage (exit 3) when one cannot be. */
  write(): { run: RunFile; path: string }[] {
    const finishedAt = new Date().toISOString();
    const out = this.arms.map((a) => {
      const traces = !this.opts.keepTraces
        ? undefined
        : this.unsaved
          ? dropTraces(a.traceDir)
          : keepTraces(a.records, a.traceDir, this.opts.outDir, a.base);
      const run: RunFile = { ...this.file(a, true, finishedAt), ...(traces && Object.keys(traces).length ? { traces } : {}) };
      // `repeats` last in the file: the summary reads first. Values read from the environment are written
      // as ${env.NAME} (redact.ts), in the file and in what callers print.
      const { repeats, ...head } = run;
      return { run: redactSecrets({ ...head, repeats }, a.sc.secrets), path: a.path };
    });
    try {
      if (this.unsaved) throw this.unsaved;
      for (const o of out) writeJsonAtomic(o.path, o.run);
    } catch (e) {
      if (out.length === 1) {
        const stopped = `the run stopped after ${this.arms[0]!.records.length} of ${this.schedule.length} repeats`;
        throw notSaved(e, this.unsaved ? stopped : undefined, out[0]!.run);
      }
      const done = this.arms.reduce((n, a) => n + a.records.length, 0);
      const stopped = `the compare stopped after ${done} repeat${done === 1 ? '' : 's'}`;
      throw notSaved(e, this.unsaved ? stopped : undefined, { baseline: out[0]!.run, candidate: out[1]!.run });
    }
    return out;
  }
}
